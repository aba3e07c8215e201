// Child process: folds a spool folder into a ledger once (what `reconcile --once` does with spools).
import {openLedger} from '../../../src/ledger/open-ledger.ts';
import {foldSpool} from '../../../src/ledger/spool.ts';

const [ledgerFile, spool] = process.argv.slice(2);
const ledger = openLedger(ledgerFile ?? '');
const stats = foldSpool(ledger, spool ?? '');
ledger.close();
process.stdout.write(`${JSON.stringify(stats)}\n`);
