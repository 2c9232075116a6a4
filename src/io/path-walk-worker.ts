/** The helper thread of long first-use walks (path-walk-helper.ts): walks the blocks of each job it is posted. */
import { parentPort } from 'node:worker_threads';
import { walkHelperJob, type PathWalkJob } from '../core/json/path-walk.ts';

parentPort!.on('message', (job: PathWalkJob) => walkHelperJob(job));
