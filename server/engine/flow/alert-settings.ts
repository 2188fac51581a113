import { z } from 'zod';

/**
 * Who is told, and when, about a flow's runs (`settings.alerts` in the flow document, or
 * the stored default for every flow that sets none). Text fields may use
 * `{{ secrets.NAME }}`, as steps do, so a chat address or a mail password stays in the
 * secret store. validate-settings.ts checks the values in plain words.
 */
export const alertSettingsSchema = z.object({
  // Off: this flow sends no alerts, whatever the default says.
  enabled: z.boolean().default(true),
  on: z.object({
    failed: z.boolean().default(true),
    needsReview: z.boolean().default(true),
    // More than `over` refused webhook deliveries within `within` (a length of time).
    webhookRefusals: z.object({ over: z.number(), within: z.string() }).optional(),
  }).default({ failed: true, needsReview: true }),
  email: z.object({
    to: z.string(),
    from: z.string().optional(),
    smtp: z.object({
      host: z.string(),
      port: z.union([z.number(), z.string()]).default(587),
      secure: z.boolean().optional(),
      user: z.string().optional(),
      password: z.string().optional(),
    }),
  }).optional(),
  chat: z.object({
    // A Slack-compatible incoming webhook: POST { "text": … }.
    url: z.string(),
    // When the receiver honours an idempotency key in this header, a repeat after a crash cannot post twice.
    keyHeader: z.string().optional(),
  }).optional(),
});

export type AlertSettings = z.output<typeof alertSettingsSchema>;
export type AlertSettingsInput = z.input<typeof alertSettingsSchema>;
