import {CliError, USAGE_EXIT} from './errors.ts';

/** `controlroom otel export` (filled in below). */
export async function exportSpans(_argv: readonly string[]): Promise<number> {
	throw new CliError('otel export: not built yet', USAGE_EXIT);
}
