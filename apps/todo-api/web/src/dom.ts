/**
 * The few DOM helpers the screens share. Text always goes in as text (never as HTML), so nothing
 * a user or the server wrote can become markup; there is no inline style or script (the CSP).
 */
import { AuthClientError } from '@latchkey/client'

type Child = Node | string | null | undefined | false
type Attrs = Record<string, string | number | boolean | null | undefined | ((event: Event) => void)>

/** An element with attributes (`on…` ones become listeners; `true` is an empty attribute) and children. */
export const h = <K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Attrs = {}, ...children: Child[]) => {
  const element = document.createElement(tag)
  for (const [name, value] of Object.entries(attrs)) {
    if (typeof value === 'function') element.addEventListener(name.slice(2).toLowerCase(), value)
    else if (value === true) element.setAttribute(name, '')
    else if (value !== false && value !== null && value !== undefined) element.setAttribute(name, String(value))
  }
  element.append(...children.filter((child): child is Node | string => child !== null && child !== undefined && child !== false))
  return element
}

let ids = 0
/** A page-unique id for label/description links. */
export const uid = (prefix: string) => `${prefix}-${++ids}`

let fade: ReturnType<typeof setTimeout> | undefined
let frame: number | undefined
/**
 * Says `message` in the page's live region, which is also on screen (a toast at the bottom) for
 * a few seconds, or until the next screen ({@link quiet}): what a screen reader hears, everyone sees.
 */
export const announce = (message: string) => {
  const region = document.getElementById('announce')
  if (!region) return
  quiet()
  // A change the live region notices even when the same words come twice.
  frame = requestAnimationFrame(() => {
    region.textContent = message
    fade = setTimeout(() => {
      region.textContent = ''
    }, 8000)
  })
}

/** Ends the toast now: a new screen's text is not to be covered by what the last screen said. */
export const quiet = () => {
  if (frame !== undefined) cancelAnimationFrame(frame)
  clearTimeout(fade)
  const region = document.getElementById('announce')
  if (region) region.textContent = ''
}

/**
 * A passkey ceremony that ended without a passkey and without anything going wrong: the person
 * closed the browser's dialog or refused its check, the authenticator holds no passkey for this
 * site (WebAuthn answers all of these alike, `NotAllowedError`, so a site cannot probe for
 * passkeys), or a newer ceremony replaced this one (`AbortError`). The browser throws a
 * `DOMException`; @simplewebauthn/browser wraps it in a `WebAuthnError` of the same name.
 */
export const dismissed = (err: unknown): boolean =>
  err instanceof Error && (err.name === 'NotAllowedError' || err.name === 'AbortError')

/**
 * What a failure says to a person: the server's detail (and when to try again after a 429),
 * that no answer came (status 0), or what else went wrong, never a network error it was not.
 */
export const describeError = (err: unknown): string => {
  if (err instanceof AuthClientError) {
    if (err.status === 0) return 'The server could not be reached. Check your connection and try again.'
    if (err.status === 429 && err.retryAfter !== null)
      return `${err.detail || 'Too many attempts.'} Try again in ${err.retryAfter} s.`
    return err.detail || `The server answered ${err.status}.`
  }
  // The browser's WebAuthn errors (InvalidStateError: this device already holds a passkey for
  // the account; SecurityError; NotSupportedError…) and whatever else threw.
  const said = err instanceof Error && err.message ? ` (${err.message})` : ''
  if (err instanceof DOMException || (err instanceof Error && 'code' in err && String(err.code).startsWith('ERROR_')))
    return `Your device could not use a passkey here${said}.`
  return `Something went wrong${said}. Try again.`
}

export interface FieldSpec {
  name: string
  label: string
  type?: string
  autocomplete?: string
  required?: boolean
  minlength?: number
  maxlength?: number
  inputmode?: string
  pattern?: string
  hint?: string
  value?: string
}

export interface FormSpec {
  label: string
  fields: FieldSpec[]
  submit: string
  /** Runs with the values; a thrown AuthClientError's field errors land on their fields. */
  onSubmit: (values: Record<string, string>, form: HTMLFormElement) => Promise<void>
  /** Extra content below the button. */
  footer?: Child[]
  className?: string
  /**
   * The signed-in email, for a form with a password field but no email field: a hidden
   * `autocomplete="username"` field tells password managers (and Chromium) whose password it is.
   */
  username?: string
}

/**
 * An accessible form: every input has a label, a hint and an error line tied to it
 * (`aria-describedby`), the error summary is `role="alert"`, the button is disabled while the
 * request runs, and focus goes to the first field the server refused.
 */
export const form = (spec: FormSpec): HTMLFormElement => {
  const errorLines = new Map<string, HTMLElement>()
  const inputs = new Map<string, HTMLInputElement>()
  const labels = new Map(spec.fields.map((field) => [field.name, field.label]))
  const summary = h('p', { class: 'error', role: 'alert' })
  const rows = spec.fields.map((field) => {
    const id = uid(field.name)
    const hintId = `${id}-hint`
    const errorId = `${id}-error`
    const input = h('input', {
      id,
      name: field.name,
      type: field.type ?? 'text',
      autocomplete: field.autocomplete,
      required: field.required ?? true,
      minlength: field.minlength,
      maxlength: field.maxlength,
      inputmode: field.inputmode,
      pattern: field.pattern,
      'aria-describedby': `${field.hint ? `${hintId} ` : ''}${errorId}`,
    })
    if (field.value !== undefined) input.value = field.value
    inputs.set(field.name, input)
    const error = h('span', { id: errorId, class: 'field-error' })
    errorLines.set(field.name, error)
    return h(
      'div',
      { class: 'field' },
      h('label', { for: id }, field.label),
      input,
      field.hint ? h('span', { id: hintId, class: 'hint' }, field.hint) : null,
      error,
    )
  })
  const button = h('button', { type: 'submit' }, spec.submit)
  const username =
    spec.username === undefined
      ? null
      : h('input', {
          type: 'email',
          name: 'username',
          autocomplete: 'username',
          value: spec.username,
          hidden: true,
          readonly: true,
        })
  const element = h(
    'form',
    { 'aria-label': spec.label, class: spec.className ?? null, novalidate: true },
    username,
    ...rows,
    button,
    summary,
    ...(spec.footer ?? []),
  )
  element.addEventListener('submit', async (event) => {
    event.preventDefault()
    summary.textContent = ''
    for (const [name, line] of errorLines) {
      line.textContent = ''
      inputs.get(name)?.removeAttribute('aria-invalid')
    }
    const values = Object.fromEntries([...inputs].map(([name, input]) => [name, input.value]))
    button.disabled = true
    element.setAttribute('aria-busy', 'true')
    try {
      await spec.onSubmit(values, element)
    } catch (err) {
      const refused = err instanceof AuthClientError ? err.errors : []
      let first: HTMLInputElement | undefined
      const marked = new Set<string>()
      for (const fieldError of refused) {
        const name = fieldError.path.split('.').at(-1) ?? ''
        const input = inputs.get(name)
        const line = errorLines.get(name)
        if (!input || !line) continue
        input.setAttribute('aria-invalid', 'true')
        line.textContent = fieldError.message
        first ??= input
        marked.add(labels.get(name) ?? name)
      }
      // Every refusal already sits under its field: the summary names the fields instead of
      // repeating the server's "The request does not match the schema."
      const named = [...marked].map((label) => label.toLowerCase())
      summary.textContent =
        named.length > 0 && refused.every((e) => inputs.has(e.path.split('.').at(-1) ?? ''))
          ? `Check the ${named.length === 1 ? named[0] : `${named.slice(0, -1).join(', ')} and ${named.at(-1)}`} above.`
          : describeError(err)
      ;(first ?? inputs.values().next().value)?.focus()
    } finally {
      button.disabled = false
      element.removeAttribute('aria-busy')
    }
  })
  return element
}
