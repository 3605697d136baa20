import { Controller, Get, Inject, Logger, NotFoundException, Req, Res } from '@nestjs/common';
import { JwtService } from '@nestjs/jwt';
import { ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { ApiErrorResponses } from '../../../common/openapi/api-responses';
import type { Request, Response } from 'express';
import { Public } from '../../../common/decorators/public.decorator';
import { requestMeta } from '../../../common/utils/request-actor';
import { APP_CONFIG, AppConfig } from '../../../config/app-config';
import { OidcClientService, PendingLogin } from './oidc-client.service';
import { OidcService, SsoRefused } from './oidc.service';

const COOKIE = 'ovr_oidc';
const COOKIE_PATH = '/api/admin/oidc';
const PENDING_MINUTES = 10;
const LOGIN_PAGE = '/admin/login';

interface PendingPayload extends PendingLogin {
  typ: 'oidc-login';
}

/**
 * Single sign-on (docs/auth.md "Single sign-on"). `login` sends the browser to the provider with PKCE, state and
 * nonce, whose secrets travel in a signed, httpOnly, 10-minute cookie scoped to these two routes; `callback`
 * checks them, opens a normal session and hands it to the console in the URL fragment (`#sso=<refresh token>`,
 * never sent to a server or written to a log), which the console spends at once on POST /api/admin/refresh.
 */
@ApiTags('admin auth')
@Controller('admin/oidc')
export class OidcController {
  private readonly logger = new Logger(OidcController.name);

  constructor(
    private readonly client: OidcClientService,
    private readonly oidc: OidcService,
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
      'The provider returns here; 302 to /admin/login#sso=<refresh token> or /admin/login#sso-error=<no-role|inactive|failed|unavailable>',
    description: 'The console spends the refresh token from the fragment at once with POST /api/admin/refresh.',
  })
  @ApiResponse({
    status: 302,
    description: 'To the login page',
    headers: {
      Location: { description: 'The login page with the outcome in the fragment', schema: { type: 'string' } },
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
      if (providerError)
        await this.oidc.refuse('failed', `provider answered ${providerError.slice(0, 60)}`, null, meta);
      const identity = await this.client
        .complete(query, pending)
        .catch((err: unknown) =>
          this.oidc.refuse('failed', `callback rejected: ${describe(err)}`.slice(0, 300), null, meta),
        );
      const { refreshToken } = await this.oidc.signIn(identity, meta);
      return this.toLoginPage(res, 'sso', refreshToken);
    } catch (err) {
      if (err instanceof SsoRefused) return this.toLoginPage(res, 'sso-error', err.refusal);
      throw err;
    }
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
  private toLoginPage(res: Response, key: 'sso' | 'sso-error', value: string): void {
    res.redirect(302, `${LOGIN_PAGE}#${key}=${encodeURIComponent(value)}`);
  }
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
