import {describe, expect, it} from 'vitest';
import {tmuxPaneFromData, tmuxPaneFromEnv} from '../../src/core/tmux.ts';

describe('where an agent runs in tmux (TMUX, TMUX_PANE)', () => {
	it('reads the socket, the server PID, the session id and the pane', () => {
		expect(tmuxPaneFromEnv('/tmp/tmux-1000/default,4242,3', '%17')).toEqual({
			socket: '/tmp/tmux-1000/default',
			serverPid: 4242,
			session: '$3',
			pane: '%17',
		});
	});

	it('takes the numbers from the right: a socket path may hold commas', () => {
		expect(tmuxPaneFromEnv('/tmp/a,b/sock,12,0', '%0')).toMatchObject({socket: '/tmp/a,b/sock', serverPid: 12, session: '$0'});
	});

	it.each([
		['no TMUX', undefined, '%1'],
		['no TMUX_PANE', '/tmp/s,1,0', undefined],
		['empty values', '', ''],
		['a pane that is not %N', '/tmp/s,1,0', '1'],
		['a pane with an escape code', '/tmp/s,1,0', '%1\u001b]0;x\u0007'],
		['a relative socket', 'sock,1,0', '%1'],
		['a socket with an escape code', '/tmp/\u001b[2Js,1,0', '%1'],
		['a socket with NUL', '/tmp/s\u0000x,1,0', '%1'],
		['no numeric fields', '/tmp/s', '%1'],
		['a huge socket', `/${'x'.repeat(5000)},1,0`, '%1'],
	])('is null for %s', (_why, tmux, pane) => {
		expect(tmuxPaneFromEnv(tmux, pane)).toBeNull();
	});

	it('checks a stored pane again: a ledger is input too', () => {
		expect(tmuxPaneFromData({socket: '/tmp/s', pane: '%2', serverPid: 9, session: '$1'})).toEqual({
			socket: '/tmp/s',
			pane: '%2',
			serverPid: 9,
			session: '$1',
		});
		expect(tmuxPaneFromData({socket: '/tmp/s', pane: '2'})).toBeNull();
		expect(tmuxPaneFromData({socket: 'relative', pane: '%2'})).toBeNull();
		expect(tmuxPaneFromData('nope')).toBeNull();
		expect(tmuxPaneFromData(null)).toBeNull();
	});
});
