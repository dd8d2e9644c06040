export const TOP: number
export function topPasswords(): string[]
export function render(): string
