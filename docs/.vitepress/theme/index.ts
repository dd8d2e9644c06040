/**
 * The default VitePress theme, with the colours it leaves below WCAG AA contrast raised
 * (contrast.css) and the search dialog's roles corrected (search-dialog.ts). The search button and
 * the home page's landmark are fixed where VitePress builds them: see the aliases in ../config.mts.
 */
import type { Theme } from 'vitepress'
import DefaultTheme from 'vitepress/theme'
import './contrast.css'
import { watchSearchDialog } from './search-dialog.js'

export default {
  extends: DefaultTheme,
  enhanceApp() {
    if (typeof document !== 'undefined') watchSearchDialog()
  },
} satisfies Theme
