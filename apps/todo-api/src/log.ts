/**
 * The request log's writer for the server process: the lines made during one turn of the event
 * loop reach standard output in one write, at the end of that turn, instead of one
 * `console.log` (its formatting and a write system call) per request, which was the largest
 * cost the reference server added to a request over bare Hono (pnpm bench, docs/PERFORMANCE.md).
 * Whatever is still pending when the process exits is written then. Like `console.log`, it
 * ignores a failing stream (a closed pipe: EPIPE) instead of letting the error stop the server.
 */
export const batchedLines = (out: NodeJS.WritableStream = process.stdout): ((line: string) => void) => {
  let pending = ''
  out.on('error', () => {})
  const flush = () => {
    if (pending === '') return
    const text = pending
    pending = ''
    out.write(text)
  }
  process.on('exit', flush)
  return (line) => {
    if (pending === '') setImmediate(flush)
    pending += `${line}\n`
  }
}
