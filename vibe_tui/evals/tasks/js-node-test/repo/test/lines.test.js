'use strict';

const test = require('node:test');
const assert = require('node:assert');
const { invoiceTotal, formatCents } = require('../src/lines.js');

test('an invoice sums its lines', () => {
  const lines = [
    { quantity: 2, unitCents: 250 },
    { quantity: 1, unitCents: 1000 },
  ];
  assert.strictEqual(invoiceTotal(lines), 1500);
});

test('an empty invoice totals zero', () => {
  assert.strictEqual(invoiceTotal([]), 0);
});

test('cents are shown in euros', () => {
  assert.strictEqual(formatCents(1500), '15.00 EUR');
});
