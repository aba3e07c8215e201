// `npm run bench`: runs every test/bench/*.bench.mjs in name order. Benchmarks print figures and
// never fail on timing; each measures its own baseline in the same run.
import {readdirSync} from 'node:fs';
import {fileURLToPath} from 'node:url';

const dir = fileURLToPath(new URL('.', import.meta.url));
const only = process.argv[2];
for (const name of readdirSync(dir)
	.filter(file => file.endsWith('.bench.mjs'))
	.sort()) {
	if (only && !name.includes(only)) continue;
	console.log(`\n## ${name}`);
	const bench = await import(new URL(name, import.meta.url).href);
	await bench.default();
}
