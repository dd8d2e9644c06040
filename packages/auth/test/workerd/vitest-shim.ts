/**
 * Just enough of vitest to run the store conformance suite inside workerd, where vitest itself
 * cannot run: `describe`, `it`, `beforeEach`, `afterEach`, and vitest's own `expect`
 * (`@vitest/expect` on chai, as vitest builds it). The worker bundle maps `vitest` to this file.
 * Tests run one after another; `run()` answers each one's name and error.
 */
import { chai, getState, JestAsymmetricMatchers, JestChaiExpect, JestExtend, setState } from '@vitest/expect'

chai.use(JestExtend)
chai.use(JestChaiExpect)
chai.use(JestAsymmetricMatchers)

type Hook = () => unknown
interface Suite {
  name: string
  before: Hook[]
  after: Hook[]
  children: (Suite | Test)[]
}
interface Test {
  name: string
  fn: Hook
}

const root: Suite = { name: '', before: [], after: [], children: [] }
let current = root

export const describe = (name: string, body: () => void) => {
  const suite: Suite = { name, before: [], after: [], children: [] }
  current.children.push(suite)
  const parent = current
  current = suite
  try {
    body()
  } finally {
    current = parent
  }
}
export const it = (name: string, fn: Hook) => {
  current.children.push({ name, fn })
}
export const test = it
export const beforeEach = (fn: Hook) => {
  current.before.push(fn)
}
export const afterEach = (fn: Hook) => {
  current.after.push(fn)
}

// biome-ignore lint/suspicious/noExplicitAny: chai's expect is typed per use site; vitest's typing is not needed here.
export const expect: any = (value: unknown, message?: string) => {
  const { assertionCalls } = getState(expect)
  setState({ assertionCalls: assertionCalls + 1 }, expect)
  return chai.expect(value, message)
}
Object.assign(expect, chai.expect)
setState({ assertionCalls: 0, isExpectingAssertions: false, expectedAssertionsNumber: null }, expect)

export interface Outcome {
  name: string
  error: string | null
}

/** Runs every registered test in order, with the hooks of its suites around it. */
export const run = async (): Promise<Outcome[]> => {
  const outcomes: Outcome[] = []
  const visit = async (suite: Suite, path: string[], before: Hook[], after: Hook[]) => {
    const hooksBefore = [...before, ...suite.before]
    const hooksAfter = [...suite.after, ...after]
    for (const child of suite.children) {
      const names = [...path, child.name]
      if ('children' in child) {
        await visit(child, names, hooksBefore, hooksAfter)
        continue
      }
      let error: string | null = null
      try {
        for (const hook of hooksBefore) await hook()
        await child.fn()
      } catch (err) {
        error = err instanceof Error ? err.message : String(err)
      } finally {
        for (const hook of hooksAfter) await hook()
      }
      outcomes.push({ name: names.filter(Boolean).join(' > '), error })
    }
  }
  await visit(root, [], [], [])
  root.children = []
  return outcomes
}
