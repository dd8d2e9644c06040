/** The app's own routes (docs/reference/endpoints.md#todos), through the client's authorized `fetch`. */
import { type AuthClient, AuthClientError } from '@latchkey/client'

export interface Todo {
  id: string
  userId: string
  title: string
  done: boolean
  createdAt: string
}

export type Filter = 'all' | 'open' | 'done'

export const refusal = async (response: Response) => {
  const problem = (await response.json().catch(() => ({}))) as ConstructorParameters<typeof AuthClientError>[1]
  const header = response.headers.get('retry-after')
  return new AuthClientError(response.status, problem ?? {}, header && /^\d+$/.test(header) ? Number(header) : null)
}

export const todoApi = (auth: AuthClient) => {
  const call = async <T>(path: string, method = 'GET', body?: unknown): Promise<T> => {
    const response = await auth.fetch(path, {
      method,
      ...(body === undefined ? {} : { body: JSON.stringify(body), headers: { 'Content-Type': 'application/json' } }),
    })
    if (!response.ok) throw await refusal(response)
    return (response.status === 204 ? null : await response.json()) as T
  }
  return {
    list: (filter: Filter) => call<Todo[]>(`/todos?limit=100${filter === 'all' ? '' : `&done=${filter === 'done'}`}`),
    add: (title: string) => call<Todo>('/todos', 'POST', { title }),
    setDone: (id: string, done: boolean) => call<Todo>(`/todos/${encodeURIComponent(id)}`, 'PATCH', { done }),
    remove: (id: string) => call<null>(`/todos/${encodeURIComponent(id)}`, 'DELETE'),
  }
}
