import {readFileSync} from 'node:fs';
import {join} from 'node:path';
import {afterAll, describe, expect, it} from 'vitest';
import {EventType} from '../../src/core/events.ts';
import type {Snapshot} from '../../src/core/snapshot.ts';
import {BIN} from '../helpers/cli.ts';
import {makeReviewRepo} from '../helpers/review-repo.ts';
import {Tmux} from '../helpers/tmux.ts';
import {onLedgerChange, waitFor} from '../helpers/wait-for.ts';

const tmux = new Tmux();
afterAll(() => tmux.kill());

// A person at the board: a real worker, a real review that needs them, the board in tmux, and `x`
// with a reason sending the work back; the worker then runs again with the reason in its brief.
describe('the review gate on the board in tmux', {timeout: 120_000}, () => {
	it('shows the verdicts in REVIEWS, documents x in help, and x sends a review that needs a person back', async () => {
		const r = makeReviewRepo();
		const approved = r.runWorker('approved work');
		const taskId = r.runWorker('prose review');
		expect(r.asPerson(['review', approved, '--reviewer', 'cat >/dev/null; echo APPROVE']).status).toBe(0);
		expect(r.asPerson(['review', taskId, '--reviewer', 'cat >/dev/null; echo "Looks fine to me."']).status).toBe(2);

		const session = 'review';
		tmux.start(session, 160, 45, {CONTROLROOM_HOME: r.home, REVIEW_TEST_OUT: r.out, PATH: process.env['PATH'] ?? ''});
		tmux.type(session, `node ${BIN} --ledger ${r.ledger}`);
		tmux.send(session, 'Enter');
		const {pane} = await tmux.waitFor(session, current => current.includes('REVIEWS (2)'), 20_000);
		const reviewLine = (id: string) => pane.split('\n').find(line => line.includes(`${id}  `) && line.includes('round 1')) ?? '';
		expect(reviewLine(taskId)).toContain('INVALID');
		expect(reviewLine(approved)).toContain('APPROVE');
		await waitFor(() => tmux.readsKeys(session), {what: 'the board to read keys', timeoutMs: 8000});

		tmux.send(session, '?');
		const help = await tmux.waitFor(session, current => current.includes('KEYS') && current.includes('send back with a reason'));
		const xLine = help.pane.split('\n').find(line => line.includes('send back with a reason')) ?? '';
		expect(xLine).not.toContain('not built');
		tmux.send(session, 'Escape');
		await tmux.waitFor(session, current => current.includes('REVIEWS (2)') && !current.includes('KEYS'));

		// The review that needs a person is the queue's only entry: focus the queue, x, a reason.
		tmux.send(session, 'Tab');
		await tmux.waitFor(session, current => current.includes('k acknowledges'));
		tmux.send(session, 'x');
		await tmux.waitFor(session, current => current.includes(`send ${taskId} back`));
		tmux.type(session, 'count the empty file too');
		await tmux.waitFor(session, current => current.includes('count the empty file too'));
		tmux.send(session, 'Enter');
		await tmux.waitFor(session, current => current.includes(`sent back ${taskId}`), 20_000);

		const [sentBack] = r.events([EventType.workSentBack]);
		expect(sentBack).toMatchObject({taskId, source: 'board', data: {reason: 'count the empty file too', from: 'reviews'}});
		const rerunId = sentBack?.data.rerunTaskId ?? '';
		const rerun = await waitFor(
			() => {
				const task = r.task(rerunId);
				return task?.status === 'done' && task;
			},
			{what: 'the worker to run again and finish', timeoutMs: 30_000, on: [onLedgerChange(r.ledger)]},
		);
		expect(rerun.role).toBe('worker');
		expect(readFileSync(join(r.out, `${rerunId}.fixes`), 'utf8')).toContain('count the empty file too');
		expect(readFileSync(join(r.repo, 'src', 'app.txt'), 'utf8')).toContain(`change by ${rerunId}`);
		// The entry left the queue's reviews lane.
		const snapshot = JSON.parse(r.cli(['snapshot', '--json']).stdout) as Snapshot;
		expect(snapshot.queue.lanes.find(lane => lane.name === 'reviews')?.items).toEqual([]);
	});
});
