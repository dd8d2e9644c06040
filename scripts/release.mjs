// `pnpm release`: publishes @latchkey/auth, @latchkey/client and @latchkey/verify to the npm
// registry, for whoever holds the account (CONTRIBUTING.md, "Publishing"). It refuses, naming
// why, a working tree with changes (what is published must be a commit), a package without a
// `repository` (provenance ties the tarball to it) or without a CHANGELOG section for its
// version; then `pnpm publish` (never npm: it would keep the workspace-only `exports` condition)
// builds, checks and publishes each package, skipping a version the registry already has.
// `--dry-run` goes through everything but the upload.
import { execFileSync } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'

const PACKAGES = ['auth', 'client', 'verify']
const dryRun = process.argv.includes('--dry-run')
const refuse = (why) => {
  console.error(`release: ${why}`)
  process.exit(1)
}

const dirty = execFileSync('git', ['status', '--porcelain'], { encoding: 'utf8' }).trim()
if (dirty !== '') refuse(`the working tree has changes; commit or stash them first:\n${dirty}`)

for (const name of PACKAGES) {
  const dir = `packages/${name}`
  const manifest = JSON.parse(readFileSync(`${dir}/package.json`, 'utf8'))
  if (!manifest.repository?.url) refuse(`${dir}/package.json has no repository.url (npm checks provenance against it)`)
  if (manifest.publishConfig?.access !== 'public' || manifest.publishConfig?.provenance !== true)
    refuse(`${dir}/package.json: publishConfig needs access "public" and provenance true`)
  const changelog = `${dir}/CHANGELOG.md`
  if (!existsSync(changelog) || !readFileSync(changelog, 'utf8').includes(`\n## ${manifest.version} `))
    refuse(`${changelog} has no "## ${manifest.version} …" section for the version about to be published`)
}

const filters = PACKAGES.flatMap((name) => ['--filter', `./packages/${name}`])
execFileSync('pnpm', [...filters, '--recursive', 'publish', '--access', 'public', ...(dryRun ? ['--dry-run'] : [])], {
  stdio: 'inherit',
})
