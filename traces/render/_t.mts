import { readFileSync, writeFileSync } from 'node:fs';
import { parseItf } from './readItf.ts';
import { renderSequenceSvg } from './sequence.ts';
const itf = parseItf(readFileSync('/tmp/kmcr/tp.itf.json','utf8'));
writeFileSync('/tmp/kmcr/seq.svg', renderSequenceSvg(itf));
