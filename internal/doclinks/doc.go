// Package doclinks implements the check that keeps the documentation's
// cross-references alive: every relative link and every #anchor in
// README.md, CONTRIBUTING.md and docs/*.md must point to a file that exists
// and, for a Markdown target, to a heading it has.
//
// Design:
//
//   - The check reads Markdown the way GitHub renders it, only as far as
//     links need: fenced code blocks and inline code spans hold no links and
//     no headings (a "# comment" in a shell block is not a heading), and a
//     heading's anchor is GitHub's slug of its text: lowercased, every
//     character that is not a letter, mark, number, space, hyphen or
//     underscore removed, spaces turned into hyphens, and a repeated slug
//     suffixed -1, -2, ... in document order. Explicit <a id="..."> or
//     name="..." anchors count too.
//   - Links with a scheme (https:, mailto:) are left alone: the check must
//     pass without a network. A fragment is checked only when the target is
//     Markdown; a link into a source file (x.go#L10) is checked for the file.
//   - Check returns every problem, each naming the file and line of the link,
//     so one run of the test lists all broken links, not the first.
//   - The test runs it on the module's own documents under go test ./..., and
//     also checks that the README still shows the two commands a newcomer
//     starts with.
package doclinks
