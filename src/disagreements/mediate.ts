import {mediate, type Transcript} from '../core/mediation/engine.ts';
import {oracleOf} from '../core/mediation/oracle.ts';
import {checkSameSpace, type Position} from '../core/mediation/position.ts';
import {spaceOf} from '../core/mediation/space.ts';
import {describe, PositionFileError, readPositionFile} from './position-file.ts';

/**
 * Reads each agent's position file, checks they contest the same items, and mediates. Each
 * position is handed to the engine only as an oracle: the engine, and the transcript, never see
 * a weight or a floor.
 */
export function mediateFiles(files: readonly string[]): Transcript {
	const positions = files.map(readPositionFile);
	const problems = checkSameSpace(positions);
	if (problems.length > 0) throw new PositionFileError(problems.map(problem => describe(problem.agent, problem)).join('\n'));
	return mediate(positions.map(oracleOf), spaceOf(optionsOf(positions)));
}

function optionsOf(positions: readonly Position[]): Record<string, string[]> {
	const first = positions[0];
	if (!first) return {};
	return Object.fromEntries(Object.entries(first.utilities).map(([item, options]) => [item, Object.keys(options)]));
}
