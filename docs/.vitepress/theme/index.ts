/**
 * The default VitePress theme, with the colours it leaves below WCAG AA contrast raised
 * (contrast.css). The search button and the home page's landmark are fixed where VitePress builds
 * them: see the aliases in ../config.mts.
 */
import DefaultTheme from 'vitepress/theme'
import './contrast.css'

export default DefaultTheme
