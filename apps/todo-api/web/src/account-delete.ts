/** The account screen's last section: deleting the account. */
import { form, h } from './dom.js'
import { withCodeHeld } from './reauth.js'
import { type AccountContext, section } from './section.js'

export const deleteSection = ({ auth, noticeNext }: AccountContext) =>
  section(
    'Delete the account',
    h('p', {}, 'This deletes your account and every todo in it. It cannot be undone.'),
    form({
      label: 'Delete the account',
      submit: 'Delete my account',
      className: 'danger',
      fields: [
        {
          name: 'code',
          label: 'Code or recovery code',
          autocomplete: 'one-time-code',
          maxlength: 20,
          required: false,
          hint: 'Needed when two-factor sign-in is on.',
        },
      ],
      async onSubmit({ code = '' }) {
        noticeNext('Your account is deleted.')
        try {
          // One code: on a stale session the dialog asks for the password only (see reauth.ts).
          const held = code.trim() ? { code: code.trim() } : {}
          await withCodeHeld(auth, (currentPassword) =>
            auth.deleteAccount(currentPassword === undefined ? held : { ...held, currentPassword }),
          )
        } catch (err) {
          noticeNext('')
          throw err
        }
      },
    }),
  )
