import {readFileSync} from 'node:fs';
import {expect, it} from 'vitest';
import {helpLines, keyTableFor} from '../../src/core/board/keymap.ts';

it('keeps the key list in docs/board.md in step with the key table', () => {
	const doc = readFileSync(new URL('../../docs/board.md', import.meta.url), 'utf8');
	// A past board's help (board --at) is the live board's and its stepping keys.
	for (const line of helpLines(keyTableFor(true))) expect(doc).toContain(`| \`${line.keys}\` | ${line.description} |`);
});
