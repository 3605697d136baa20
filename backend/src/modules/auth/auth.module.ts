import { createSecretKey } from 'crypto';
import { Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { JwtModule } from '@nestjs/jwt';
import { APP_CONFIG, AppConfig } from '../../config/app-config';
import { AdminAttemptRepository } from './admin-attempt.repository';
import { AdminRecoveryCodeRepository } from './admin-recovery-code.repository';
import { AdminBootstrapService } from './admin-bootstrap.service';
import { AttemptLimiterService } from './attempt-limiter.service';
import { AdminSessionRepository } from './admin-session.repository';
import { AdminUserRepository } from './admin-user.repository';
import { AuthController } from './auth.controller';
import { AuthGuard } from './auth.guard';
import { AuthService } from './auth.service';
import { BlockedIpRepository } from './blocked-ip.repository';
import { BlockedIpService } from './blocked-ip.service';
import { CustomerTokenService } from './customer-token.service';
import { SessionService } from './session.service';
import { SessionsController } from './sessions.controller';
import { TwoFactorService } from './two-factor.service';
import { AttemptsModule } from '../attempts/attempts.module';
import { ApiTokenRepository } from './api-tokens/api-token.repository';
import { ApiTokenService } from './api-tokens/api-token.service';
import { ApiTokensController } from './api-tokens/api-tokens.controller';
import { OidcClientService } from './oidc/oidc-client.service';
import { OidcController } from './oidc/oidc.controller';
import { OidcHandoffRepository } from './oidc/oidc-handoff.repository';
import { OidcHandoffService } from './oidc/oidc-handoff.service';
import { OidcService } from './oidc/oidc.service';
import { UnknownLoginNameRepository } from './unknown-login-name.repository';
import { AuthRetention } from './auth.retention';
import { LoginFailures } from './login-failures';

/**
 * Admin sign-in (password, or single sign-on through an OpenID provider), sessions, 2FA, integrations' API tokens
 * and the global guard that every route passes (deny by default).
 * `SessionService.verifyAccessToken` is exported for the socket gateway's handshake, `AttemptLimiterService`
 * for the per-user limit of test e-mails.
 */
@Module({
  imports: [
    // API tokens' rate limit counts in the store every instance shares (Redis with REDIS_URL).
    AttemptsModule,
    // The secret is JWT_SECRET as a KeyObject made once: given a string, jsonwebtoken builds one on every call, first
    // trying it as a public key and catching the failure (~0.8 ms of CPU per signed-in request in a profile). The
    // algorithm (HS256) is pinned on every sign and verify call.
    JwtModule.registerAsync({
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig) => ({ secret: createSecretKey(Buffer.from(config.jwtSecret, 'utf8')) }),
    }),
  ],
  controllers: [AuthController, SessionsController, OidcController, ApiTokensController],
  providers: [
    AdminUserRepository,
    AdminSessionRepository,
    AdminAttemptRepository,
    AdminRecoveryCodeRepository,
    UnknownLoginNameRepository,
    AttemptLimiterService,
    BlockedIpRepository,
    AdminBootstrapService,
    SessionService,
    BlockedIpService,
    TwoFactorService,
    AuthService,
    LoginFailures,
    OidcClientService,
    OidcService,
    OidcHandoffRepository,
    OidcHandoffService,
    ApiTokenRepository,
    ApiTokenService,
    CustomerTokenService,
    AuthRetention,
    { provide: APP_GUARD, useClass: AuthGuard },
  ],
  // The sessions' and attempts' repositories for the CLI; the users' repository for the pool alerts' recipients and the names in a redemption's history.
  exports: [
    SessionService,
    CustomerTokenService,
    BlockedIpService,
    AttemptLimiterService,
    AdminSessionRepository,
    AdminAttemptRepository,
    UnknownLoginNameRepository,
    AdminUserRepository,
  ],
})
export class AuthModule {}
