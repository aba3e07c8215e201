import {parse} from 'yaml';
import * as z from 'zod';
import {checkPosition, type Position, type PositionProblem} from '../core/mediation/position.ts';
import {AgentFileError, readAgentText} from '../ledger/agent-files.ts';

/** The largest position file read (docs/mediation.md): a position is a few lines of YAML. */
const MAX_POSITION_BYTES = 1024 * 1024;

const unit = z.number({error: 'expected a number from 0 to 1'}).min(0, 'must be 0 or more').max(1, 'must be 1 or less');

/** A position file (YAML), as docs/mediation.md describes it; messages in the file's own terms. */
const positionSchema = z.strictObject(
	{
		agent: z.string({error: 'required: the agent this position speaks for'}).min(1, 'must not be empty'),
		utilities: z.record(z.string().min(1), z.record(z.string().min(1), unit, {error: 'expected each option with its utility'}), {
			error: 'required: each contested item with the utility of each of its options',
		}),
		weights: z.record(z.string().min(1), unit, {error: 'required: each contested item with its weight'}),
		floor: unit,
		never: z
			.record(z.string().min(1), z.array(z.string().min(1), {error: 'expected a list of options'}), {
				error: 'expected each item with a list of options this agent can never accept',
			})
			.default({}),
	},
	{error: 'expected a position: agent, utilities, weights, floor, never'},
);

/** A position file that cannot be used: one line per problem, naming the file and field, never a value. */
export class PositionFileError extends Error {}

const fieldOf = (path: readonly PropertyKey[]): string => (path.length === 0 ? 'file' : path.map(String).join('.'));

/** Reads and validates one agent's position file. */
export function readPositionFile(file: string): Position {
	let text: string;
	try {
		text = readAgentText(file, MAX_POSITION_BYTES);
	} catch (error) {
		if (error instanceof AgentFileError) throw new PositionFileError(error.message);
		throw error;
	}
	let document: unknown;
	try {
		document = parse(text);
	} catch {
		throw new PositionFileError(`${file}: not valid YAML`);
	}
	const parsed = positionSchema.safeParse(document);
	if (!parsed.success) {
		// zod's messages name the expectation (a number, at most 1), never the value found.
		const lines = parsed.error.issues.map(issue => `${file}: ${fieldOf(issue.path)}: ${issue.message}`);
		throw new PositionFileError(lines.join('\n'));
	}
	const problems = checkPosition(parsed.data);
	if (problems.length > 0) throw new PositionFileError(problems.map(problem => describe(file, problem)).join('\n'));
	return parsed.data;
}

/** A problem that spans files, or one file's, as one line. */
export function describe(where: string, problem: PositionProblem): string {
	return `${where}: ${problem.field}: ${problem.message}`;
}
