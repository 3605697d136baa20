import { Inject, Injectable, Logger, OnModuleDestroy } from '@nestjs/common';
import { mkdirSync } from 'fs';
import { writeFile } from 'fs/promises';
import { join } from 'path';
import { createTransport, Transporter } from 'nodemailer';
import { randomUUID } from 'crypto';
import { Clock } from '../../common/clock';
import { APP_CONFIG, AppConfig } from '../../config/app-config';
import { classifyMailError, MailFailure } from './mail-failure';

export interface OutgoingMail {
  to: string;
  subject: string;
  html: string;
  text: string;
  /** The Message-ID header, `<…@…>`; nodemailer makes a random one when unset. */
  messageId?: string;
}

export interface ProviderAttempt {
  provider: string;
  ok: boolean;
  messageId?: string;
  /** The provider's error text (the e-mail log keeps it: it may quote the recipient). */
  error?: string;
  /** What may be said about the failure outside (webhooks): its class and SMTP code. */
  failure?: MailFailure;
}

interface Provider {
  name: string;
  send(mail: OutgoingMail): Promise<string | undefined>;
  close(): void;
}

/**
 * The "dual e-mail system": the primary SMTP provider, then the fallback (docs/product.md §12.2).
 * With neither configured, messages are written as .eml files under `<dataDir>/mail` and count as sent.
 */
@Injectable()
export class MailTransportService implements OnModuleDestroy {
  private readonly logger = new Logger(MailTransportService.name);
  private readonly providers: Provider[];

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly clock: Clock,
  ) {
    this.providers = [];
    if (config.smtpUrl) this.providers.push(this.smtp('primary', config.smtpUrl));
    if (config.smtpFallbackUrl) this.providers.push(this.smtp('fallback', config.smtpFallbackUrl));
    if (!this.providers.length) this.providers.push(this.file(join(config.dataDir, 'mail')));
  }

  /** Tries each provider in turn and reports every attempt; the mail is delivered when one succeeds. */
  async send(mail: OutgoingMail): Promise<ProviderAttempt[]> {
    const attempts: ProviderAttempt[] = [];
    for (const provider of this.providers) {
      try {
        const messageId = await provider.send(mail);
        attempts.push({ provider: provider.name, ok: true, messageId });
        return attempts;
      } catch (err) {
        const error = err instanceof Error ? err.message : String(err);
        this.logger.warn(`E-mail to ${mail.to} failed on ${provider.name}: ${error}`);
        attempts.push({ provider: provider.name, ok: false, error, failure: classifyMailError(err) });
      }
    }
    return attempts;
  }

  onModuleDestroy(): void {
    for (const provider of this.providers) provider.close();
  }

  private smtp(name: string, url: string): Provider {
    // The URL carries host, port, TLS and credentials; the timeouts keep a dead or hung provider (one that accepts
    // the connection and never greets, or stops answering) from stalling a job: the fallback gets its turn.
    const timeout = this.config.smtpTimeoutMs;
    const transporter: Transporter = createTransport({
      url,
      // Connections are kept and reused (at most as many as a worker sends at once): a new connection, greeting
      // and EHLO per message made the e-mails queue up behind the redemptions at 100 a second (issue 12).
      pool: true,
      maxConnections: this.config.mailConcurrency,
      // A connection that closes while it holds a message is tried once more on a fresh one (a pooled connection
      // the server dropped while idle), not five times with growing pauses (~2.4 s): a provider that keeps dropping
      // connections hands over to the fallback at once, and the queue's own retries (MAIL_ATTEMPTS) do the rest.
      maxRequeues: 1,
      connectionTimeout: timeout,
      greetingTimeout: timeout,
      socketTimeout: 3 * timeout,
    } as Parameters<typeof createTransport>[0]);
    return {
      name,
      send: async (mail) => {
        const info = await transporter.sendMail({ from: this.config.mailFrom, ...mail });
        return info.messageId;
      },
      close: () => transporter.close(),
    };
  }

  private file(dir: string): Provider {
    const transporter = createTransport({ streamTransport: true, buffer: true, newline: 'unix' });
    return {
      name: 'file',
      send: async (mail) => {
        const info = await transporter.sendMail({ from: this.config.mailFrom, ...mail });
        mkdirSync(dir, { recursive: true });
        const file = join(dir, `${this.clock.now().toISOString().replace(/[:.]/g, '-')}-${randomUUID()}.eml`);
        await writeFile(file, info.message as Buffer);
        return info.messageId;
      },
      close: () => transporter.close(),
    };
  }
}
