/** The todo list: add, tick off, delete, and show all, the open or the done ones. */
import { announce, describeError, form, h } from './dom.js'
import type { ScreenContext } from './signed-out.js'
import { type Filter, type Todo, todoApi } from './todos.js'

/** The list's filter, kept across visits of the screen. */
let filter: Filter = 'all'

export const todoScreen = async ({ auth, show }: ScreenContext) => {
  const todos = todoApi(auth)
  const list = h('ul', { class: 'todos', 'aria-label': 'Todos' })
  const status = h('p', { class: 'error', role: 'alert' })
  const empty = h('p', { class: 'empty' })

  const item = (todo: Todo) => {
    const id = `todo-${todo.id}`
    const box = h('input', { type: 'checkbox', id })
    box.checked = todo.done
    box.addEventListener('change', async () => {
      status.textContent = ''
      box.disabled = true
      try {
        await todos.setDone(todo.id, box.checked)
        announce(`${todo.title}: ${box.checked ? 'done' : 'not done'}`)
        if (filter !== 'all') await load()
      } catch (err) {
        box.checked = !box.checked
        status.textContent = describeError(err)
      } finally {
        box.disabled = false
      }
    })
    const remove = h('button', { type: 'button', class: 'link', 'aria-label': `Delete ${todo.title}` }, 'Delete')
    remove.addEventListener('click', async () => {
      status.textContent = ''
      try {
        await todos.remove(todo.id)
        announce(`Deleted ${todo.title}`)
        await load()
      } catch (err) {
        status.textContent = describeError(err)
      }
    })
    return h('li', {}, box, h('label', { for: id }, todo.title), remove)
  }

  const load = async () => {
    try {
      const found = await todos.list(filter)
      list.replaceChildren(...found.map(item))
      empty.textContent =
        found.length === 0
          ? filter === 'all'
            ? 'Nothing to do yet. Add your first todo above.'
            : `No ${filter} todos. Choose “All” to see every todo.`
          : ''
    } catch (err) {
      status.textContent = describeError(err)
    }
  }

  const adder = form({
    label: 'Add a todo',
    className: 'inline',
    submit: 'Add',
    fields: [{ name: 'title', label: 'New todo', maxlength: 500 }],
    async onSubmit({ title = '' }, element) {
      const todo = await todos.add(title)
      element.reset()
      announce(`Added ${todo.title}`)
      await load()
      ;(element.querySelector('input') as HTMLInputElement).focus()
    },
  })

  const filters = h(
    'fieldset',
    { class: 'filters' },
    h('legend', {}, 'Show'),
    ...(['all', 'open', 'done'] as const).map((value) => {
      const id = `filter-${value}`
      const radio = h('input', { type: 'radio', name: 'filter', id, value })
      radio.checked = filter === value
      radio.addEventListener('change', () => {
        filter = value
        void load()
      })
      return h('span', {}, radio, h('label', { for: id }, value === 'all' ? 'All' : value === 'open' ? 'Open' : 'Done'))
    }),
  )

  show('Todos', adder, filters, status, list, empty)
  await load()
}
