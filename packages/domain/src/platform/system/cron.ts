// One parser for the server's schedulers and the settings page: the helpers live in @meridian/rules.
export { cronFiresAt, previousCronTime } from "@meridian/rules/cron";
