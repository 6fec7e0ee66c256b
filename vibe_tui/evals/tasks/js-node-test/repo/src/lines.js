'use strict';

// Sum of quantity x unit price over the lines, in cents.
function lineTotal(line) {
  return line.quantity * line.unitCents;
}

function invoiceTotal(lines) {
  return lines.reduce((sum, line) => sum + lineTotal(line));
}

function formatCents(cents) {
  return `${(cents / 100).toFixed(2)} EUR`;
}

module.exports = { lineTotal, invoiceTotal, formatCents };
