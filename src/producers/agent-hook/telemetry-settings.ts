import {claudeTelemetryEnv} from '../../core/otel/claude-telemetry.ts';
import {readJsonFile, writeAtomically} from './hooks-install.ts';

/**
 * `hooks install --claude --otel URL`: Claude Code's telemetry settings in its settings file's
 * `env` (Claude reads them there as from its environment: docs/otel.md), so every session, wrapped
 * or not, sends its requests and their exact cost to `controlroom otel receive`. Other `env` keys
 * are kept; ours are set to what they must be.
 */
export function installTelemetrySettings(
	file: string,
	endpoint: string,
): {readonly file: string; readonly changed: readonly string[]} {
	const settings = readJsonFile(file) ?? {};
	const current = settings['env'];
	const env: Record<string, unknown> =
		current !== null && typeof current === 'object' && !Array.isArray(current) ? {...current} : {};
	const changed: string[] = [];
	for (const [name, value] of Object.entries(claudeTelemetryEnv(endpoint))) {
		if (env[name] === value) continue;
		env[name] = value;
		changed.push(name);
	}
	if (changed.length > 0) writeAtomically(file, `${JSON.stringify({...settings, env}, null, 2)}\n`);
	return {file, changed};
}
