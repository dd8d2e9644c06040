/**
 * The otpauth URI as a QR code, drawn here (uqr) as one SVG path: the secret never leaves the
 * page for a QR service, and the CSP needs no `img-src data:`.
 */
import { encode } from 'uqr'

const SVG = 'http://www.w3.org/2000/svg'

export const qrCode = (text: string, label: string): SVGSVGElement => {
  const { data, size } = encode(text, { ecc: 'M', border: 2 })
  let d = ''
  data.forEach((row, y) => {
    row.forEach((dark, x) => {
      if (dark) d += `M${x} ${y}h1v1h-1z`
    })
  })
  const svg = document.createElementNS(SVG, 'svg')
  svg.setAttribute('viewBox', `0 0 ${size} ${size}`)
  svg.setAttribute('class', 'qr')
  svg.setAttribute('role', 'img')
  svg.setAttribute('aria-label', label)
  const background = document.createElementNS(SVG, 'rect')
  background.setAttribute('width', String(size))
  background.setAttribute('height', String(size))
  background.setAttribute('fill', '#fff')
  const path = document.createElementNS(SVG, 'path')
  path.setAttribute('d', d)
  path.setAttribute('fill', '#000')
  svg.append(background, path)
  return svg
}
