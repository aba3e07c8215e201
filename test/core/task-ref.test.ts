import {describe, expect, it} from 'vitest';
import {ambiguityText, chooseByTitle} from '../../src/core/task-ref.ts';

const task = (id: string, title: string | null, endedAt: number | null = null) => ({id, title, endedAt});

describe('chooseByTitle', () => {
	const tasks = [
		task('w-1', 'fix export', 1),
		task('w-2', 'fix export'),
		task('w-3', 'Fix export v2', 2),
		task('w-4', 'fix import', 3),
		task('w-5', null),
	];

	it('takes the whole title before the titles it begins, and the running one of several', () => {
		expect(chooseByTitle('fix export', tasks)).toEqual({task: tasks[1]});
		expect(chooseByTitle(' FIX EXPORT V', tasks)).toEqual({task: tasks[2]});
		expect(chooseByTitle('fix im', tasks)).toEqual({task: tasks[3]});
	});

	it('is ambiguous when several match and not exactly one runs, and names nothing for no match or an empty ref', () => {
		const ended = tasks.filter(candidate => candidate.endedAt !== null);
		expect(chooseByTitle('fix', ended)).toEqual({ambiguous: ended});
		// Of the titles `fix` begins, one runs: that one
		expect(chooseByTitle('fix', tasks)).toEqual({task: tasks[1]});
		expect(chooseByTitle('fix export', [task('a', 'fix export', 1), task('b', 'fix export', 2)])).toEqual({
			ambiguous: [task('a', 'fix export', 1), task('b', 'fix export', 2)],
		});
		expect(chooseByTitle('fix export', [task('a', 'fix export'), task('b', 'fix export')])).toMatchObject({
			ambiguous: {length: 2},
		});
		expect(chooseByTitle('deploy', tasks)).toBeNull();
		expect(chooseByTitle('   ', tasks)).toBeNull();
	});

	it('says the ambiguity in one line: ids, hosts, titles cut and made safe, and how many more', () => {
		const many = Array.from({length: 7}, (_, index) => ({
			...task(`w-${index}`, `fix \u001b[31m${'x'.repeat(60)}`),
			host: 'beta',
		}));
		const line = ambiguityText('fix', many);
		expect(line).not.toContain('\n');
		expect(line).not.toContain('\u001b');
		expect(line).toMatch(/^task 'fix' is ambiguous: it matches w-0 on beta "fix .{30,40}…", w-1 on beta/);
		expect(line).toMatch(/w-4 on beta "[^"]+" and 2 more; give more of the id or the title$/);
	});
});
