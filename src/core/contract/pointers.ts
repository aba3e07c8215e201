/**
 * What an evidence pointer points at (docs/contracts.md, "Evidence bundle"): a URL, a commit, a
 * file in the repository (`src/export.ts`, `src/export.ts:42`), or nothing (prose). A bundle of
 * prose is a summary, not evidence.
 */
export type Pointer =
	| {readonly kind: 'url'; readonly isValid: boolean}
	| {readonly kind: 'commit'; readonly revision: string}
	| {readonly kind: 'file'; readonly path: string}
	| {readonly kind: 'prose'};

const SCHEME = /^[a-z][a-z0-9+.-]*:\/\//i;
const COMMIT = /^(?:commit[: ])?([0-9a-f]{7,40})$/i;

/** Reads one pointer as written. */
export function pointerOf(written: string): Pointer {
	const pointer = written
		.trim()
		.replace(/^`([^`]*)`$/, '$1')
		.trim();
	if (SCHEME.test(pointer)) {
		try {
			const url = new URL(pointer);
			return {kind: 'url', isValid: (url.protocol === 'https:' || url.protocol === 'http:') && url.hostname !== ''};
		} catch {
			return {kind: 'url', isValid: false};
		}
	}
	const commit = COMMIT.exec(pointer);
	if (commit?.[1] !== undefined) return {kind: 'commit', revision: commit[1]};
	if (/\s/.test(pointer) || pointer === '') return {kind: 'prose'};
	// `src/export.ts:42` and `src/export.ts#L42` point at a line of the file.
	return {kind: 'file', path: pointer.replace(/(?::\d+(?:-\d+)?|#L\d+(?:-L?\d+)?)$/, '')};
}
