/**
 * What `tq serve` prints once it listens: the URL, the viewer's address (docs/viewer.md), a curl line that runs a query on the
 * loaded data as it is (pasted into a shell), and the environment lines for the Weave SDK.
 * Passwords appear only when tq generated them (they exist nowhere else); a configured
 * password is shown as `<password>`, never echoed.
 */
import type { FieldPrefix } from '../api/types.ts';
import type { Store } from '../store/store.ts';

export interface BannerInput {
  url: string;
  /** The user for the curl line (a name, or `<user>` when only a users file names them). */
  user: string;
  /** The generated password, or undefined for `<password>`. */
  generatedPassword?: string;
  fieldPrefix: FieldPrefix;
  store: Store;
  /** The certificate file of `--tls-cert` (clients must trust it: NODE_EXTRA_CA_CERTS, curl --cacert). */
  tlsCert?: string;
}

/** The first project, by name, that holds calls. */
function sampleProject(store: Store): string | undefined {
  return [...store.projects.keys()].sort().find((id) => store.projects.get(id)!.calls.size > 0);
}

/** Single quotes for a POSIX shell. */
const shellQuote = (text: string) => `'${text.replaceAll("'", `'\\''`)}'`;

export function bannerLines(b: BannerInput): string[] {
  const password = b.generatedPassword ?? '<password>';
  const auth = shellQuote(`${b.user}:${password}`);
  const project = sampleProject(b.store);
  const curlFlags = b.tlsCert === undefined ? `-s -u ${auth}` : `-s --cacert ${shellQuote(b.tlsCert)} -u ${auth}`;
  const curl = project
    ? `curl ${curlFlags} ${b.url}/calls/stream_query -d ${shellQuote(JSON.stringify({ project_id: project, sort_by: [{ field: 'started_at', direction: 'desc' }], limit: 3 }))}`
    : `curl ${curlFlags} ${b.url}/server_info`;
  const sdkNote = b.fieldPrefix === 'wb_' ? '' : ' (restart with --field-prefix wb_ first)';
  return [
    `tq listening on ${b.url}`,
    `  browse:     ${b.url}/   (the trace viewer; sign in as ${b.user})`,
    `  try:        ${curl}`,
    `  Weave SDK${sdkNote}:`,
    `    export WF_TRACE_SERVER_URL=${b.url}`,
    `    export WANDB_API_KEY=${b.generatedPassword ?? '<password>'}${b.user === 'api' ? '' : `   # the SDK signs in as user "api"`}`,
    `    export WANDB_BASE_URL=${b.url}   # /graphql: weave.init('project') without an entity${b.tlsCert === undefined ? ' (TypeScript: needs --tls-cert)' : ''}`,
    ...(b.tlsCert === undefined ? [] : [`    export NODE_EXTRA_CA_CERTS=${shellQuote(b.tlsCert)}   # Node trusts the self-signed certificate`]),
  ];
}
