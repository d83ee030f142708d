import { describe, expect, it } from "vitest";
import { addressKey } from "./address-key";

describe("addressKey", () => {
  it("keeps IPv4 addresses, and reads IPv4 written as IPv6 as IPv4", () => {
    expect(addressKey("203.0.113.7")).toBe("203.0.113.7");
    expect(addressKey("::ffff:203.0.113.7")).toBe("203.0.113.7");
  });

  it("keys IPv6 addresses by their /64, however they are written", () => {
    const key = "2001:db8:1:2::/64";
    expect(addressKey("2001:db8:1:2::1")).toBe(key);
    expect(addressKey("2001:0DB8:0001:0002:ffff:eeee:dddd:cccc")).toBe(key);
    expect(addressKey("2001:db8:1:2:0:0:0:9%eth0")).toBe(key);
    expect(addressKey("2001:db8:1:3::1")).not.toBe(key);
    expect(addressKey("::1")).toBe("0:0:0:0::/64");
    expect(addressKey("2001:db8::")).toBe("2001:db8:0:0::/64");
  });

  it("leaves what is not an address as it is", () => {
    expect(addressKey("unknown")).toBe("unknown");
  });
});
