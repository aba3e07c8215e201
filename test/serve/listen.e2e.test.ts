import {describe, expect, it} from 'vitest';
import {runCli, scratchDir} from '../helpers/cli.ts';
import {startServe} from '../helpers/serve.ts';

// Where serve listens (docs/serve.md, "Listening"): loopback by default; a taken port is one line
// and exit 69; an address others reach needs the TLS terminator's public URL, and warns.

describe('serve: listening', () => {
	it('answers a taken port with one line and exit 69, and stops on SIGTERM with 143', async () => {
		const home = scratchDir('cr-serve-listen-');
		const served = await startServe(home);
		expect(served.mcp.hostname).toBe('127.0.0.1');
		const taken = runCli(['serve', '--listen', `127.0.0.1:${served.mcp.port}`], {env: {CONTROLROOM_HOME: home}});
		expect(taken.status).toBe(69);
		expect(taken.stderr.trim().split('\n')).toEqual([
			`controlroom: serve: 127.0.0.1:${served.mcp.port} is taken by another program; choose another with --listen`,
		]);
		expect(await served.stop()).toBe(143);
	});

	it('refuses an address others reach without --public-url, and warns with one', async () => {
		const home = scratchDir('cr-serve-listen-');
		const bare = runCli(['serve', '--listen', '0.0.0.0:0'], {env: {CONTROLROOM_HOME: home}});
		expect(bare.status).toBe(64);
		expect(bare.stderr).toContain('--listen 0.0.0.0:0 is not loopback: give --public-url https://');
		const http = runCli(['serve', '--listen', '0.0.0.0:0', '--public-url', 'http://cr.example.net'], {
			env: {CONTROLROOM_HOME: home},
		});
		expect(http.status).toBe(64);
		expect(http.stderr).toContain('--public-url: must be https://');
		const served = await startServe(home, ['--listen', '0.0.0.0:0', '--public-url', 'https://cr.example.net']);
		expect(served.mcp.href).toBe('https://cr.example.net/mcp');
		expect(served.stderr()).toContain('warning: listening on 0.0.0.0:');
		expect(served.stderr()).toContain(
			'not loopback: anything that reaches this port can try it; serve it only behind the TLS terminator at https://cr.example.net',
		);
		await served.stop();
	});
});
