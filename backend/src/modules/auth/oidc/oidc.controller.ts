import { Body, Controller, Get, HttpCode, Inject, Logger, NotFoundException, Post, Req, Res } from '@nestjs/common';
import { JwtService } from '@nestjs/jwt';
import { ApiOkResponse, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { ApiErrorResponses } from '../../../common/openapi/api-responses';
import type { CookieOptions, Request, Response } from 'express';
import { Public } from '../../../common/decorators/public.decorator';
import { requestMeta } from '../../../common/utils/request-actor';
import { APP_CONFIG, AppConfig } from '../../../config/app-config';
import { LoginResponse } from '../dto/auth-responses.dto';
import { OidcClientService, PendingLogin } from './oidc-client.service';
import { HANDOFF_REFUSED, HANDOFF_SECONDS, OidcHandoffService } from './oidc-handoff.service';
import { OidcExchangeDto } from './oidc-exchange.dto';
import { OidcService, SsoRefused } from './oidc.service';

const COOKIE = 'ovr_oidc';
const COOKIE_PATH = '/api/admin/oidc';
const PENDING_MINUTES = 10;
const LOGIN_PAGE = '/admin/login';
/** The hand-off's browser cookie: sent only with the exchange. */
export const HANDOFF_COOKIE = 'ovr_sso_handoff';
const EXCHANGE_PATH = `${COOKIE_PATH}/exchange`;

interface PendingPayload extends PendingLogin {
  typ: 'oidc-login';
}

/**
 * Single sign-on (docs/auth.md "Single sign-on"). `login` sends the browser to the provider with PKCE, state and
 * nonce, whose secrets travel in a signed, httpOnly, 10-minute cookie scoped to these routes; `callback` checks
 * them and admits the person, then hands the console a one-time code (`#sso-code=<code>`) bound to this browser by
 * an httpOnly, SameSite=Strict cookie sent only to `exchange`, where the console trades code and cookie for its
 * session. No redirect carries anything that opens a session by itself.
 */
@ApiTags('admin auth')
@Controller('admin/oidc')
export class OidcController {
  private readonly logger = new Logger(OidcController.name);

  constructor(
    private readonly client: OidcClientService,
    private readonly oidc: OidcService,
    private readonly handoffs: OidcHandoffService,
    private readonly jwt: JwtService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  @Public()
  @Get('login')
  @ApiOperation({
    summary: "Single sign-on: 302 to the provider's authorization endpoint (code flow, PKCE S256, state, nonce)",
  })
  @ApiResponse({
    status: 302,
    description: 'To the provider',
    headers: { Location: { description: 'Authorization URL', schema: { type: 'string' } } },
  })
  @ApiErrorResponses({ 404: 'Single sign-on is not configured' })
  async login(@Req() req: Request, @Res() res: Response): Promise<void> {
    const settings = this.requireEnabled();
    let url: URL;
    let pending: PendingLogin;
    try {
      ({ url, pending } = await this.client.begin(
        settings.redirectUri ?? `${req.protocol}://${req.get('host')}${COOKIE_PATH}/callback`,
      ));
    } catch (err) {
      this.logger.error(`Single sign-on could not start: ${err instanceof Error ? err.message : err}`);
      return this.toLoginPage(res, 'sso-error', 'unavailable');
    }
    const payload: PendingPayload = { typ: 'oidc-login', ...pending };
    const cookie = await this.jwt.signAsync(payload, {
      algorithm: 'HS256',
      expiresIn: `${PENDING_MINUTES}m`,
    });
    res.cookie(COOKIE, cookie, {
      httpOnly: true,
      // Lax: the provider's redirect back is a top-level GET navigation from another site.
      sameSite: 'lax',
      secure: this.config.nodeEnv === 'production' || req.secure,
      path: COOKIE_PATH,
      maxAge: PENDING_MINUTES * 60_000,
    });
    res.redirect(302, url.href);
  }

  @Public()
  @Get('callback')
  @ApiOperation({
    summary:
      'The provider returns here; 302 to /admin/login#sso-code=<one-time code> or ' +
      '/admin/login#sso-error=<no-role|unverified|domain|inactive|failed|unavailable>',
    description:
      `With a code, the answer sets the cookie ${HANDOFF_COOKIE} (HttpOnly, SameSite=Strict, Secure in production, ` +
      `Path=${EXCHANGE_PATH}, ${HANDOFF_SECONDS} s) that binds it to this browser: the console trades both for ` +
      'its session with POST /api/admin/oidc/exchange. The code alone opens nothing.',
  })
  @ApiResponse({
    status: 302,
    description: 'To the login page',
    headers: {
      Location: { description: 'The login page with the outcome in the fragment', schema: { type: 'string' } },
      'Set-Cookie': { description: `${HANDOFF_COOKIE}: the code's browser binding`, schema: { type: 'string' } },
    },
  })
  @ApiErrorResponses({ 404: 'Single sign-on is not configured' })
  async callback(@Req() req: Request, @Res() res: Response): Promise<void> {
    this.requireEnabled();
    const meta = requestMeta(req);
    res.clearCookie(COOKIE, {
      path: COOKIE_PATH,
      httpOnly: true,
      sameSite: 'lax',
      secure: this.config.nodeEnv === 'production' || req.secure,
    });
    // No cookie of ours (expired, another browser, forged): refused without an audit row, like any anonymous 401.
    const pending = await this.pending(req);
    if (!pending) return this.toLoginPage(res, 'sso-error', 'failed');
    const query = req.originalUrl.includes('?') ? req.originalUrl.slice(req.originalUrl.indexOf('?')) : '';
    try {
      const providerError = typeof req.query.error === 'string' ? req.query.error : undefined;
      if (providerError) {
        await this.oidc.refuse('failed', `provider answered ${providerError.slice(0, 60)}`, null, meta);
      }
      const identity = await this.client
        .complete(query, pending)
        .catch((err: unknown) =>
          unreachable(err)
            ? this.oidc.refuse('unavailable', `provider unreachable: ${describe(err)}`.slice(0, 300), null, meta)
            : this.oidc.refuse('failed', `callback rejected: ${describe(err)}`.slice(0, 300), null, meta),
        );
      const { code, browserKey } = await this.handoffs.issue(await this.oidc.signIn(identity, meta));
      // Strict: sent only by this site's own pages. Set on a redirect that came from the provider (a cross-site
      // navigation), it is stored all the same; the login page's POST to the exchange is same-site and carries it.
      res.cookie(HANDOFF_COOKIE, browserKey, { ...this.handoffCookie(req), maxAge: HANDOFF_SECONDS * 1000 });
      return this.toLoginPage(res, 'sso-code', code);
    } catch (err) {
      if (err instanceof SsoRefused) return this.toLoginPage(res, 'sso-error', err.refusal);
      throw err;
    }
  }

  @Public()
  @Post('exchange')
  @HttpCode(200)
  @ApiOperation({
    summary: "Trade the callback's one-time code, with this browser's hand-off cookie, for the console's session",
    description:
      `The code is spent by its first presentation and lives ${HANDOFF_SECONDS} s; the cookie ${HANDOFF_COOKIE} ` +
      'is cleared by every answer. The tokens are those of POST /api/admin/login.',
  })
  @ApiOkResponse({ type: LoginResponse })
  @ApiErrorResponses(400, { 401: HANDOFF_REFUSED, 404: 'Single sign-on is not configured' })
  async exchange(
    @Body() dto: OidcExchangeDto,
    @Req() req: Request,
    @Res({ passthrough: true }) res: Response,
  ): Promise<LoginResponse> {
    this.requireEnabled();
    res.clearCookie(HANDOFF_COOKIE, this.handoffCookie(req));
    return this.handoffs.exchange(dto.code, cookieValue(req.headers.cookie, HANDOFF_COOKIE), requestMeta(req));
  }

  private handoffCookie(req: Request): CookieOptions {
    return {
      httpOnly: true,
      sameSite: 'strict',
      secure: this.config.nodeEnv === 'production' || req.secure,
      path: EXCHANGE_PATH,
    };
  }

  private requireEnabled() {
    if (!this.config.oidc) throw new NotFoundException('Single sign-on is not configured');
    return this.config.oidc;
  }

  private async pending(req: Request): Promise<PendingLogin | null> {
    const raw = cookieValue(req.headers.cookie, COOKIE);
    if (!raw) return null;
    try {
      const payload = await this.jwt.verifyAsync<PendingPayload>(raw, {
        algorithms: ['HS256'],
      });
      if (payload.typ !== 'oidc-login') return null;
      return {
        state: payload.state,
        nonce: payload.nonce,
        codeVerifier: payload.codeVerifier,
        redirectUri: payload.redirectUri,
      };
    } catch {
      return null;
    }
  }

  /** Back to the console's login page with the outcome in the fragment (browsers never send it to a server). */
  private toLoginPage(res: Response, key: 'sso-code' | 'sso-error', value: string): void {
    res.redirect(302, `${LOGIN_PAGE}#${key}=${encodeURIComponent(value)}`);
  }
}

/**
 * Whether the provider could not be reached or did not answer (connection refused or reset, timeout, a 5xx), here or
 * in the error's causes: nobody refused the sign-in, so the login page says to try again later. `fetch` throws a
 * TypeError `fetch failed`. Names, not `instanceof`: the library may wrap an error of another realm.
 */
function unreachable(err: unknown): boolean {
  let e = err as { name?: string; message?: string; code?: string; cause?: unknown } | undefined;
  for (let depth = 0; e && typeof e === 'object' && depth < 4; depth++, e = e.cause as typeof e) {
    if (e.name === 'TypeError' && e.code === undefined && e.message === 'fetch failed') return true;
    if (e.name === 'TimeoutError' || e.code === 'OAUTH_TIMEOUT' || e.code === 'OAUTH_ABORT') return true;
    const status = (e.cause as { status?: unknown } | undefined)?.status;
    if (e.code === 'OAUTH_RESPONSE_IS_NOT_CONFORM' && typeof status === 'number' && status >= 500) return true;
  }
  return false;
}

/** openid-client's errors: the message, the OAuth error code the provider sent, and the check that failed. */
function describe(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const e = err as Error & { error?: string; error_description?: string; code?: string; cause?: unknown };
  const cause = e.cause instanceof Error ? e.cause.message : undefined;
  return [e.message, e.error, e.error_description, cause].filter(Boolean).join('; ');
}

function cookieValue(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return decodeURIComponent(part.slice(eq + 1).trim());
  }
  return undefined;
}
