// Path globs as contracts write them (scope, authority.may_write, needs_reapproval). No imports:
// the hold hook's bundle reads them too, and stays small.

const escape = (text: string): string => text.replace(/[.+^${}()|[\]\\]/g, '\\$&');

/**
 * A glob as a regular expression over repository-relative paths: `**` any folders, `*` any name
 * part, `?` one character; a pattern ending in `/`, or naming a folder, covers what is under it.
 */
export function globRegExp(pattern: string): RegExp {
	const cleaned = pattern.replace(/^\.\//, '').replace(/^\/+/, '');
	const isFolder = cleaned.endsWith('/');
	const body = cleaned.replace(/\/+$/, '');
	let source = '';
	for (let index = 0; index < body.length; index += 1) {
		const char = body[index] as string;
		if (char === '*' && body[index + 1] === '*') {
			const crossesFolder = body[index + 2] === '/';
			source += crossesFolder ? '(?:.*/)?' : '.*';
			index += crossesFolder ? 2 : 1;
		} else if (char === '*') source += '[^/]*';
		else if (char === '?') source += '[^/]';
		else source += escape(char);
	}
	return new RegExp(`^${source}${isFolder ? '/.*' : '(?:/.*)?'}$`);
}
