/**
 * Text a client chose, made safe for one line of the server's output: every control character
 * (a line break would forge log lines, ESC or a C1 CSI would drive the terminal) and U+2028/9
 * is written as a `\u` escape. Applied to JSON it stays valid JSON.
 */
export const printable = (s: string) =>
  s.replace(/[\p{Cc}\u2028\u2029]/gu, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`)
