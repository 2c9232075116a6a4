/**
 * `POST /graphql`: the part of W&B's GraphQL API the Weave SDKs ask before they trace, answered
 * over tq's own users and grants. This is a handshake, not a GraphQL server: the schema below
 * holds exactly the fields these documents select (tests record each one with its source, in
 * graphql-handshake.fixtures.json):
 *
 *   - `query DefaultEntity { viewer { username defaultEntity { name } } }`: the Python SDK's
 *     viewer query (weave/compat/wandb/wandb_thin/internal_api.py, for the default entity of
 *     `weave.init('project')` and for the user name it prints) and the TypeScript SDK's
 *     (weave/src/wandb/wandbServerApi.ts); its async twin selects only `defaultEntity`.
 *   - `query Project($name, $entityName) { project(...) { name } }`: the Python SDK's check that
 *     the project exists (weave/wandb_interface/project_creator.py).
 *   - `mutation UpsertModel(...) { upsertModel(input: {...}) { model { name description } } }`:
 *     its creation of a missing project.
 *
 * The viewer is the authenticated user; its default entity is `tq serve --entity`, else the
 * user's name. A project "exists" once something was written to it: creation writes nothing.
 * A project the user has no grant on is `null` to the lookup (W&B hides projects one cannot
 * see) and a GraphQL error to the creation. Documents are parsed and validated by the reference
 * implementation (the `graphql` package) and matched by their selection through that schema, so
 * aliases, fragments, variables and field order work as in any GraphQL server; any other field
 * is the standard validation error, with one more naming the operation. Parsing is bounded
 * (tokens) and so is the error list.
 */
import {
  buildSchema,
  execute,
  GraphQLError,
  parse,
  validate,
  type DocumentNode,
  type ExecutionResult,
  type OperationDefinitionNode,
} from 'graphql';
import { defineRoute } from '../api/define-route.ts';
import type { Engine, RequestContext, Route } from '../api/types.ts';
import { invalidRequest } from '../core/errors.ts';
import { projectIdProblem } from '../core/project-id.ts';

/** Most tokens a document may have: the SDKs' largest has about 60. */
export const MAX_GRAPHQL_TOKENS = 2000;
/** Most validation errors reported for one document. */
const MAX_GRAPHQL_ERRORS = 10;

const SCHEMA = buildSchema(`
  type Query {
    viewer: User
    project(name: String!, entityName: String): Project
  }
  type Mutation {
    upsertModel(input: UpsertModelInput!): UpsertModelPayload
  }
  type User {
    id: ID!
    username: String
    name: String
    defaultEntity: Entity
  }
  type Entity {
    id: ID!
    name: String!
  }
  type Project {
    id: ID!
    name: String!
    entityName: String!
    description: String
  }
  input UpsertModelInput {
    id: String
    name: String
    entityName: String
    description: String
    repo: String
  }
  type UpsertModelPayload {
    model: Project
    inserted: Boolean
  }
`);

export interface HandshakeOptions {
  /** The viewer's default entity (`tq serve --entity`); the user's own name when absent. */
  defaultEntity?: string;
}

const projectNode = (entity: string, name: string, description: string | null = null) => ({
  id: `${entity}/${name}`,
  name,
  entityName: entity,
  description,
});

/** What the schema's fields resolve to, for one request. */
function rootValue(engine: Engine, ctx: RequestContext, options: HandshakeOptions) {
  const defaultEntity = options.defaultEntity ?? ctx.userId;
  const exists = (projectId: string) => engine.store.project(projectId) !== undefined;
  return {
    viewer: () => ({ id: ctx.userId, username: ctx.userId, name: ctx.userId, defaultEntity: { id: defaultEntity, name: defaultEntity } }),
    project: ({ name, entityName }: { name: string; entityName?: string | null }) => {
      const entity = entityName ?? defaultEntity;
      const projectId = `${entity}/${name}`;
      return ctx.canRead(projectId) && exists(projectId) ? projectNode(entity, name) : null;
    },
    upsertModel: ({ input }: { input: { name?: string | null; entityName?: string | null; description?: string | null } }) => {
      const entity = input.entityName ?? defaultEntity;
      if (!input.name) throw new GraphQLError('upsertModel: input.name is required to create a project');
      const projectId = `${entity}/${input.name}`;
      const problem = projectIdProblem(projectId);
      if (problem !== null) throw new GraphQLError(`Invalid project '${projectId}': ${problem}`);
      if (!ctx.canRead(projectId)) throw new GraphQLError(`permission denied: user '${ctx.userId}' has no access to project '${projectId}'`);
      return { model: projectNode(entity, input.name, input.description ?? null), inserted: !exists(projectId) };
    },
  };
}

interface GraphqlRequest {
  query: string;
  variables: Record<string, unknown> | undefined;
  operationName: string | undefined;
}

/** The `{query, variables, operationName}` of a GraphQL-over-HTTP POST; a 400 naming what is wrong. */
function graphqlRequest(body: unknown): GraphqlRequest {
  const fail = (reason: string) => invalidRequest('TQ_INVALID_REQUEST', { reason });
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw fail('A GraphQL request is a JSON object {"query": ..., "variables": ...}');
  const { query, variables, operationName } = body as Record<string, unknown>;
  if (typeof query !== 'string') throw fail('The GraphQL request needs "query", a string');
  if (variables !== undefined && variables !== null && (typeof variables !== 'object' || Array.isArray(variables))) throw fail('"variables" must be an object');
  if (operationName !== undefined && operationName !== null && typeof operationName !== 'string') throw fail('"operationName" must be a string');
  return { query, variables: (variables ?? undefined) as Record<string, unknown> | undefined, operationName: operationName ?? undefined };
}

function operationLabel(document: DocumentNode, operationName: string | undefined): string {
  const ops = document.definitions.filter((d): d is OperationDefinitionNode => d.kind === 'OperationDefinition');
  const op = ops.find((o) => o.name?.value === operationName) ?? ops[0];
  return op?.name ? `'${op.name.value}'` : `(an anonymous ${op?.operation ?? 'operation'})`;
}

/** Answers one GraphQL request (errors in GraphQL's own `{"errors": [...]}` form). */
export function answerGraphql(engine: Engine, ctx: RequestContext, body: unknown, options: HandshakeOptions = {}): ExecutionResult {
  const req = graphqlRequest(body);
  let document: DocumentNode;
  try {
    document = parse(req.query, { maxTokens: MAX_GRAPHQL_TOKENS, noLocation: false });
  } catch (e) {
    return { errors: [e instanceof GraphQLError ? e : new GraphQLError(String(e))] };
  }
  const invalid = validate(SCHEMA, document, undefined, { maxErrors: MAX_GRAPHQL_ERRORS });
  if (invalid.length > 0) {
    const notServed = new GraphQLError(
      `tq answers only the Weave SDKs' handshake (viewer, project, upsertModel): operation ${operationLabel(document, req.operationName)} is not served`,
      { extensions: { code: 'GRAPHQL_VALIDATION_FAILED' } },
    );
    return { errors: [notServed, ...invalid] };
  }
  const result = execute({
    schema: SCHEMA,
    document,
    rootValue: rootValue(engine, ctx, options),
    variableValues: req.variables,
    operationName: req.operationName,
  });
  // Every resolver above is synchronous, so graphql-js answers synchronously.
  if (result instanceof Promise) throw new Error('graphql: a resolver answered asynchronously');
  return result;
}

/** The `/graphql` route: every answer a 200, as GraphQL servers answer a well-formed request. */
export function graphqlRoute(options: HandshakeOptions = {}): Route {
  return defineRoute({
    path: '/graphql',
    body: 'plain',
    mutates: false,
    answer: 'json',
    // A GraphQL request is checked by graphql-js, and each resolver reads under the user's
    // grants: the route itself names no project.
    parse: (body) => body,
    project: () => [],
    // The wire form: errors as their JSON (message, locations, path, extensions).
    run: (body, { engine, ctx }) => JSON.parse(JSON.stringify(answerGraphql(engine, ctx, body, options))) as unknown,
  });
}
