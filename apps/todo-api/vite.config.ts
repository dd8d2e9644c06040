/** `vite build` of the front end (web/ → dist/web); the settings live in src/vite-settings.ts. */
import { fileURLToPath } from 'node:url'
import { defineConfig } from 'vite'
import { viteSettings } from './src/vite-settings.js'

export default defineConfig(viteSettings(fileURLToPath(new URL('.', import.meta.url))))
