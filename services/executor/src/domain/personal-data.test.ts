import { describe, expect, it } from "vitest";
import { maskPersonalData } from "./personal-data.js";

describe("maskPersonalData", () => {
  it("masks e-mail addresses, phone numbers, valid card numbers and valid IBANs, and counts them", () => {
    const found = maskPersonalData({
      contact: "Write to jane.doe+billing@example.co.uk or call +44 20 7946 0958, (555) 123-4567",
      payment: { card: "4111 1111 1111 1111", iban: "GB82 WEST 1234 5698 7654 32" },
      notes: ["ok"],
    });
    expect(found.value).toEqual({
      contact: "Write to [email] or call [phone], [phone]",
      payment: { card: "[card]", iban: "[iban]" },
      notes: ["ok"],
    });
    expect(found.counts).toEqual({ email: 1, phone: 2, card: 1, iban: 1 });
  });

  it("leaves ids, order numbers, dates and amounts that only look alike: the checksums must hold", () => {
    const plain = {
      order: "4111 1111 1111 1112",
      account: "GB00 WEST 1234 5698 7654 32",
      at: "2026-12-02T07:05:57Z",
      id: "INV-2026-000123",
      amount: 1234567.89,
      key: "user@host",
    };
    expect(maskPersonalData(plain)).toEqual({ value: plain, counts: {} });
  });

  it("finds a card or an IBAN followed by more text, and leaves long ids and millisecond times that pass Luhn", () => {
    expect(maskPersonalData("card 4111 1111 1111 1111 12/26, iban DE89 3704 0044 0532 0130 00 BIC COBADEFF").value).toBe("card [card] 12/26, iban [iban] BIC COBADEFF");
    expect(maskPersonalData("amex 3782 822463 10005").value).toBe("amex [card]");
    // 19-digit snowflake-style ids and a 13-digit epoch-ms time, each passing Luhn
    const ids = ["1234567890123456785", "1701475200004", "4111111111111111000"];
    expect(maskPersonalData(ids)).toEqual({ value: ids, counts: {} });
  });

  it("gets through an output of the executor's largest size made of what the patterns look for, leaving it whole", () => {
    // long runs of address characters, digits and spaced digits: a pattern tried afresh at each
    // position of such a run would never finish on 4 MiB
    const big = { letters: "a".repeat(1_400_000), digits: "1".repeat(1_400_000), spaced: "1 ".repeat(700_000) };
    expect(maskPersonalData(big)).toEqual({ value: big, counts: {} });
  });
});
