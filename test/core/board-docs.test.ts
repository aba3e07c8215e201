import {readFileSync} from 'node:fs';
import {expect, it} from 'vitest';
import {helpLines} from '../../src/core/board/keymap.ts';

it('keeps the key list in docs/board.md in step with the key table', () => {
	const doc = readFileSync(new URL('../../docs/board.md', import.meta.url), 'utf8');
	for (const line of helpLines()) expect(doc).toContain(`| \`${line.keys}\` | ${line.description} |`);
});
