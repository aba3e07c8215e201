import {afterAll} from 'vitest';
import {Tmux} from '../helpers/tmux.ts';
import {Box} from './box.ts';
import {FakeServers} from './fake-servers.ts';

/**
 * What every conformance file sets up: the fake model servers, a tmux server of its own, and boxes
 * (a scratch home and checkout each), with Claude's hooks installed or without; all of it closed after the file.
 */
export function conformanceRig(): {
	readonly fakes: FakeServers;
	readonly tmux: Tmux;
	readonly plainBox: (extra?: NodeJS.ProcessEnv) => Box;
	readonly hookedBox: (extra?: NodeJS.ProcessEnv) => Promise<Box>;
} {
	const fakes = new FakeServers();
	const boxes: Box[] = [];
	const tmux = new Tmux();
	afterAll(() => {
		for (const box of boxes) box.close();
		fakes.close();
		tmux.kill();
	});
	const plainBox = (extra: NodeJS.ProcessEnv = {}): Box => {
		const box = new Box(extra);
		boxes.push(box);
		return box;
	};
	const hookedBox = async (extra: NodeJS.ProcessEnv = {}): Promise<Box> => {
		const box = plainBox(extra);
		await box.installClaudeHooks();
		return box;
	};
	return {fakes, tmux, plainBox, hookedBox};
}
