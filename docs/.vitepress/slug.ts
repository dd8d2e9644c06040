/**
 * GitHub's anchor of a heading, so one link works on both: a page read on GitHub and the same
 * page on the site (packages/auth/test/repository-docs.test.ts checks every anchor by this rule,
 * and docs/test/site.test.ts checks that the site's anchors are these).
 */
export const slugify = (heading: string): string =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-')
