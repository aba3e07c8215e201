import {describe, expect, it} from 'vitest';
import {jumpRefusal, personsClient, tmuxPaneFromData, tmuxPaneFromEnv} from '../../src/core/tmux.ts';

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

describe('a jump is refused before tmux is asked', () => {
	const pane = {socket: '/tmp/s', serverPid: 10, session: '$0', pane: '%3'};
	it('when the agent is not in tmux, the caller is not, or they are on other servers', () => {
		expect(jumpRefusal('c-1', null, pane)).toBe('c-1 does not run in tmux: its hooks and wrapper saw no TMUX');
		expect(jumpRefusal('c-1', pane, null)).toMatch(/^not inside tmux: run it from a pane of the server \/tmp\/s/);
		expect(jumpRefusal('c-1', pane, {...pane, socket: '/tmp/other'})).toBe(
			'c-1 runs on another tmux server (/tmp/s), not this one (/tmp/other)',
		);
		expect(jumpRefusal('c-1', pane, {...pane, serverPid: 11})).toBe("c-1's pane %3 is gone: its tmux server has restarted since");
		expect(jumpRefusal('c-1', pane, {...pane, pane: '%9'})).toBeNull();
	});
});

describe("the person's client", () => {
	it('is the most recently active client on the caller session, never a read-only one', () => {
		const clients = [
			{name: '/dev/pts/1', session: '$0', activity: 100, isReadOnly: false},
			{name: '/dev/pts/2', session: '$0', activity: 300, isReadOnly: true},
			{name: '/dev/pts/3', session: '$1', activity: 400, isReadOnly: false},
			{name: '/dev/pts/4', session: '$0', activity: 200, isReadOnly: false},
		];
		expect(personsClient(clients, '$0')?.name).toBe('/dev/pts/4');
		expect(personsClient(clients, '$2')).toBeNull();
	});
});
