import type { Env } from "@meridian/config";
import type { AttemptRule } from "../../platform/rate-limit";
import { addressKey } from "./address-key";

const MINUTE_MS = 60_000;

/**
 * The limits on an operation that checks or sets a password (sign-in, password change, reset
 * confirmation), counted whether it succeeds or not: each costs an argon2 hash, 19 MiB and tens of
 * milliseconds of one of libuv's few threads, so one caller looping even right passwords could hold
 * the server's CPU. At most LOGIN_ATTEMPTS_PER_IP_PER_MINUTE from one client address (when known)
 * and LOGIN_ATTEMPTS_PER_ACCOUNT_PER_MINUTE for one account (`account`: the email a sign-in names, or
 * the account's id), in buckets `<bucket>-ip` and `<bucket>-account`; `what` names the attempts in
 * the refusal ("sign-in attempts").
 */
export function passwordAttemptRules(options: { env: Env; bucket: string; what: string; ip: string | null; account: string }): AttemptRule[] {
  const { env, bucket, what, ip, account } = options;
  const perIp = env.LOGIN_ATTEMPTS_PER_IP_PER_MINUTE;
  const perAccount = env.LOGIN_ATTEMPTS_PER_ACCOUNT_PER_MINUTE;
  const accountRule: AttemptRule = {
    bucket: `${bucket}-account`,
    key: account,
    limit: perAccount,
    windowMs: MINUTE_MS,
    refusal: (wait) => `Too many ${what} for this account: at most ${perAccount} a minute; try again in ${wait}`,
  };
  if (!ip) return [accountRule];
  return [
    {
      bucket: `${bucket}-ip`,
      key: addressKey(ip),
      limit: perIp,
      windowMs: MINUTE_MS,
      refusal: (wait) => `Too many ${what} from this address: at most ${perIp} a minute; try again in ${wait}`,
    },
    accountRule,
  ];
}
