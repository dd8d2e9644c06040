/**
 * The fenced code blocks of a Markdown file, with the annotation written right above each one
 * (an HTML comment, invisible on the page): `<!-- ts: prelude server -->` compiles a fragment
 * against docs/test/preludes/server.d.ts, `<!-- sh: run -->` or `<!-- sh: <test file> -->` says
 * which test runs a shell block.
 */
export interface CodeBlock {
  /** The file's path from the repository root. */
  file: string
  /** 1-based line of the opening fence. */
  line: number
  lang: string
  code: string
  /** The words of the `<!-- … -->` comment right above the fence, or null. */
  note: string | null
}

export const codeBlocks = (file: string, markdown: string): CodeBlock[] => {
  const lines = markdown.split('\n')
  const blocks: CodeBlock[] = []
  for (let i = 0; i < lines.length; i++) {
    const open = /^( *)(`{3,}|~{3,})([\w-]*)(.*)$/.exec(lines[i] as string)
    if (!open) continue
    const [, indent = '', fence = '', lang = ''] = open
    let end = i + 1
    while (end < lines.length && !(lines[end] as string).startsWith(`${indent}${fence}`)) end++
    const code = lines
      .slice(i + 1, end)
      .map((line) => (line.startsWith(indent) ? line.slice(indent.length) : line))
      .join('\n')
    let above = i - 1
    while (above >= 0 && (lines[above] as string).trim() === '') above--
    const note = /^\s*<!--\s*(.*?)\s*-->\s*$/.exec(lines[above] ?? '')?.[1] ?? null
    blocks.push({ file, line: i + 1, lang, code: `${code}\n`, note })
    i = end
  }
  return blocks
}

/**
 * What a shell block runs, for the honesty check of its annotation: each `curl` line's path
 * (`/auth/login`) and every other command's program (`pnpm`, `node`), with variable
 * assignments and continuation lines skipped.
 */
export const shellCommands = (code: string): string[] => {
  const words: string[] = []
  let continued = false
  // Quoted text is data (a JSON body, a `node -e` program), never a command.
  const unquoted = code.replace(/'[^']*'/g, "''")
  for (const raw of unquoted.split('\n')) {
    const line = raw.replace(/\s#.*$/, '').trim()
    const starts = !continued && line !== '' && !line.startsWith('#')
    continued = line.endsWith('\\')
    if (!starts) continue
    for (const command of line.split(/&&|\|\||;|\$\(|\||\{/)) {
      const parts = command
        .trim()
        .split(/\s+/)
        .filter((word) => !/^[A-Z_][A-Z0-9_]*=/.test(word))
      const program = parts[0]
      if (!program || /^[#)}]|^\w+\(\)$/.test(program) || ['then', 'do', 'done', 'fi'].includes(program)) continue
      // `$(openssl rand -base64 32)` only makes a secret (a test makes its own), and `sleep` waits.
      if (program === 'openssl' || program === 'sleep') continue
      if (program === 'pnpm') {
        // The script or command pnpm runs (`dev`, `cli`, `exec openapi-typescript` → `openapi-typescript`).
        const rest = parts.slice(1).filter((word, i, all) => !word.startsWith('-') && !all[i - 1]?.startsWith('--filter'))
        const script = rest[0] === 'exec' || rest[0] === 'run' ? rest[1] : rest[0]
        words.push(script ?? 'pnpm')
        continue
      }
      if (program === 'curl') {
        const url = parts.find((word) => /(localhost|\$API|127\.0\.0\.1)/.test(word))
        const path = url && /(?:localhost(?::\d+)?|\$API|127\.0\.0\.1(?::\d+)?)(\/[^\s"'?]*)/.exec(url)?.[1]
        words.push(path ? path.replace(/\$\w+$/, '') : 'curl')
      } else words.push(program.replace(/^.*\//, ''))
    }
  }
  return [...new Set(words)]
}
