// Dashboard operations 18 to 23 and POST /logout (INTERFACE.md 4.2, 4.3, 5 items 4 to 6). Thin: the
// authentication hook finds the caller, the schemas check types strictly, the Dashboard does the work.
import type { FastifyInstance } from 'fastify';
import { Type, type Static } from '@sinclair/typebox';
import { ok } from '../http/envelope.ts';
import { dashboardAuth, requireDashboardSession } from '../http/dashboard-auth.ts';
import { useStrictSchemas } from '../http/strict-schema.ts';
import { DEFAULT_SESSION_SECONDS, MAX_SESSION_SECONDS } from './sessions.ts';
import { PROFILE_FIELD_MAX } from './profiles.ts';
import type { Dashboard } from './dashboard.ts';

const Envelope = { return: Type.String(), status: Type.String() };
const Nullable = Type.Union([Type.String(), Type.Null()]);
const AuthToken = Type.Optional(Type.String({ maxLength: 200, description: 'the session token, when not sent in the Authorization header' }));
const field = (description: string) => Type.Optional(Type.String({ maxLength: PROFILE_FIELD_MAX, description: `${description}; an empty value unsets it` }));
const ProfileFields = { firstname: field('first name'), lastname: field('last name'), mobile: field('mobile phone'), country: field('country') };

const SendOtpBody = Type.Object({ email: Type.String({ maxLength: 254 }), ...ProfileFields }, { additionalProperties: false });
const CheckOtpBody = Type.Object(
  {
    email: Type.String({ maxLength: 254 }),
    otp: Type.String({ maxLength: 16, description: 'the 6 digits from the e-mail' }),
    expiration: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_SESSION_SECONDS, description: 'session lifetime in seconds; default 7200' })),
  },
  { additionalProperties: false },
);
const UpdateProfileBody = Type.Object({ ...ProfileFields, auth_token: AuthToken }, { additionalProperties: false });
const GetAccountsBody = Type.Object(
  {
    pubkeys: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 200 }), { maxItems: 100, description: 'extended public keys to associate' })),
    auth_token: AuthToken,
  },
  { additionalProperties: false },
);
const LogoutBody = Type.Object({ auth_token: AuthToken }, { additionalProperties: false });
const Account = Type.Object({
  api_id: Type.String(),
  account_name: Nullable,
  account_type: Nullable,
  settlement_mode: Type.String({ description: 'direct (funds go to the merchant key) or custodial (service-held wallet)' }),
  local_currency: Type.String(),
});
const security = [{ dashboardToken: [] }];

/** Registers the dashboard operations; `GET /tx/:value` serves op 23 with a token and op 5 without one. */
export async function dashboardRoutes(app: FastifyInstance, dashboard: Dashboard): Promise<void> {
  useStrictSchemas(app);
  const tags = ['dashboard'];

  app.post<{ Body: Static<typeof SendOtpBody> }>(
    '/send_otp',
    { schema: { summary: 'E-mail a one-time login code; creates the profile on first use', tags, body: SendOtpBody, response: { 200: Type.Object(Envelope) } } },
    async (request) => {
      await dashboard.sendOtp(request.body, request.ip);
      return ok();
    },
  );

  app.post<{ Body: Static<typeof CheckOtpBody> }>(
    '/check_otp',
    {
      schema: {
        summary: 'Exchange the e-mailed code for a session token',
        tags,
        body: CheckOtpBody,
        response: { 200: Type.Object({ ...Envelope, token: Type.String(), expiration: Type.Integer({ description: 'seconds the session lasts' }) }) },
      },
    },
    async (request) => {
      const { token } = await dashboard.checkOtp(request.body, request.ip);
      return ok({ token, expiration: request.body.expiration ?? DEFAULT_SESSION_SECONDS });
    },
  );

  // Everything below needs a session.
  await app.register(async (scope) => {
    scope.addHook('preValidation', dashboardAuth(scope, dashboard.sessions));

    scope.get(
      '/get_profile',
      {
        schema: {
          summary: 'The profile of the session',
          tags,
          security,
          response: { 200: Type.Object({ ...Envelope, email: Type.String(), firstname: Nullable, lastname: Nullable, mobile: Nullable, country: Nullable }) },
        },
      },
      async (request) => ok(await dashboard.getProfile(requireDashboardSession(request))),
    );

    scope.post<{ Body: Static<typeof UpdateProfileBody> }>(
      '/update_profile',
      { schema: { summary: 'Change profile fields; an empty value unsets one', tags, security, body: UpdateProfileBody, response: { 200: Type.Object(Envelope) } } },
      async (request) => {
        const { auth_token: _token, ...fields } = request.body;
        await dashboard.updateProfile(requireDashboardSession(request), fields, request.ip);
        return ok();
      },
    );

    scope.post<{ Body: Static<typeof GetAccountsBody> }>(
      '/get_accounts',
      {
        schema: {
          summary: "The profile's accounts; pubkeys registered with the profile's e-mail are associated",
          tags,
          security,
          body: GetAccountsBody,
          response: { 200: Type.Object({ ...Envelope, auth_token: Type.String(), accounts: Type.Array(Account) }) },
        },
      },
      async (request) => {
        const session = requireDashboardSession(request);
        const accounts = await dashboard.getAccounts(session, request.body.pubkeys, request.ip);
        return ok({ auth_token: session.token, accounts });
      },
    );

    scope.post<{ Body: Static<typeof LogoutBody> }>(
      '/logout',
      { schema: { summary: 'End the session', tags, security, body: LogoutBody, response: { 200: Type.Object(Envelope) } } },
      async (request) => {
        await dashboard.logout(requireDashboardSession(request), request.ip);
        return ok();
      },
    );
  });

  await app.register(async (scope) => {
    scope.addHook('preValidation', dashboardAuth(scope, dashboard.sessions, { optional: true }));
    scope.get<{ Params: { value: string } }>(
      '/tx/:value',
      {
        schema: {
          summary: "Transactions: of a registered public key without a token, of one of the session's API IDs with one",
          tags: ['wallet API', 'dashboard'],
          security: [{}, { dashboardToken: [] }],
          params: Type.Object({ value: Type.String({ minLength: 1, maxLength: 10_000, description: 'an extended public key (or a registered descriptor, percent-encoded), or an API ID with a token' }) }),
        },
      },
      async (request) => {
        const { value } = request.params;
        if (!/^(live|test)_/.test(value)) return ok({ tx: await dashboard.publicTransactions(value) });
        const session = requireDashboardSession(request);
        return ok({ auth_token: session.token, tx: await dashboard.transactions(session, value) });
      },
    );
  });
}
