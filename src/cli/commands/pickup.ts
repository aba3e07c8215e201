import type {CommandHelp} from '../help.ts';
export const help: CommandHelp = {synopsis: ['pickup'], description: 'soon', options: [], exits: [], examples: []};
export async function run(): Promise<number> {
	return 0;
}
