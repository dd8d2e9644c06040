/**
 * A person's name for the device a session was signed in from, read from its User-Agent with
 * bowser (MIT, about 10 kB gzipped, parses every current browser and OS): "Chrome on Linux",
 * "Safari on iOS". ua-parser-js would do as well, but its version 2 is AGPL-3.0.
 */
import Bowser from 'bowser'

export const deviceName = (userAgent: string | null): string => {
  if (!userAgent) return 'Unknown device'
  const { browser, os } = Bowser.parse(userAgent)
  // Not a browser (curl/8.5.0, node): the program's own name.
  const program = browser.name || userAgent.split(/[/\s]/)[0] || 'Unknown browser'
  return os.name ? `${program} on ${os.name}` : program
}
