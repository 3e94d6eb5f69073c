// Package ubl writes and reads the UBL 2.1 JSON documents of the tax
// authority (MyInvois): Marshal turns one of our documents with its two
// parties into the minified bytes to sign and send; Parse reads such a
// document (ours or the authority's samples) into the typed model
// (Invoice and its parts), which Encode writes back.
//
// # Form
//
// The JSON form is the UBL 2.1 JSON alternative representation as the
// authority uses it: a root {"_D", "_A", "_B", "Invoice": [...]}, every
// element an array, every leaf an object with its value in "_" and its
// attributes beside it. Keys come in the order of the official samples
// (the model's field order), which is also UBL's order except inside the
// customer and delivery parties, where the samples differ. Amounts,
// quantities and rates are JSON numbers written from their exact decimal
// value (Decimal), never through float64 and never with an exponent; money
// keeps two decimals (12.30), quantities and rates are written as their
// value (a quantity sent as 1e2 is 100). No HTML escaping, no whitespace.
// Marshal writes neither UBLExtensions nor Signature: the signer adds them.
//
// # Mapping
//
// Every kind of document has the Invoice root; InvoiceTypeCode is the
// document's type code (01-04, 11-14; a consolidated invoice is 01) with
// listVersionID = Input.Version. Then, in order:
//
//   - ID = invoiceSerialNumber; IssueDate and IssueTime = Input.IssuedAt in
//     UTC (2006-01-02, 15:04:05Z).
//   - DocumentCurrencyCode = currencyCode (MYR when empty). For another
//     currency also TaxCurrencyCode MYR and TaxExchangeRate (source the
//     document's currency, target MYR, CalculationRate = exchangeRate),
//     and every tax amount (TaxTotal/TaxAmount and TaxSubtotal/TaxAmount,
//     of the document and of the lines) is the ...Myr amount in MYR; all
//     other amounts keep the document's currency.
//   - InvoicePeriod: StartDate, EndDate, Description = frequencyOfBilling.
//   - BillingReference: one per documentReferences entry, with an
//     InvoiceDocumentReference {ID = referenceNumber, UUID = uuid}. With
//     isPreEinvoicing, NA stands in for a missing uuid or number (an
//     original issued before e-invoicing has no authority uuid).
//   - AccountingSupplierParty and AccountingCustomerParty from
//     Input.Supplier and Input.Customer, written as given (the caller picks
//     them: the on-behalf seller supplies self-billed documents, the
//     general public buys a consolidated invoice): MSIC code with the
//     business activity as its name (supplier only); PartyIdentification
//     TIN, the id under its type (BRN, NRIC, PASSPORT, ARMY), SST (NA when
//     empty), TTX (supplier only, NA when empty); PostalAddress (city,
//     postcode when given, state, address lines 1 to 3 without empty ones,
//     country with listID ISO3166-1 and listAgencyID 6); RegistrationName;
//     Contact with Telephone and ElectronicMail when given.
//   - Delivery/DeliveryParty: the recipient's name, address, TIN and id.
//   - PaymentMeans: PaymentMeansCode (mapped, see below) and the supplier's
//     bank account; PaymentTerms/Note; PrepaidPayment with the prepayment's
//     reference, amount and date.
//   - AllowanceCharge: the document's discount (ChargeIndicator false) and
//     fee (true) when non-zero, with their descriptions.
//   - TaxTotal: totalTaxAmount and one TaxSubtotal per taxSubtotals entry
//     (taxable amount, tax, Percent for percentage types, PerUnitAmount for
//     tourism tax 03, TaxCategory with the type, the lines' exemption
//     reasons for E, and TaxScheme OTH, schemeID UN/ECE 5153, agency 6).
//   - LegalMonetaryTotal: LineExtensionAmount = subtotal,
//     TaxExclusiveAmount, TaxInclusiveAmount, AllowanceTotalAmount =
//     totalDiscountAmount, ChargeTotalAmount = totalFeeAmount,
//     PayableRoundingAmount = roundingAmount, PayableAmount =
//     totalPayableAmount.
//   - InvoiceLine per line, ID 1, 2, ...: InvoicedQuantity with the unit
//     (mapped), LineExtensionAmount = totalExcludingTax, AllowanceCharge for
//     the line's discount and fee (MultiplierFactorNumeric = rate / 100),
//     TaxTotal (taxAmount, one TaxSubtotal per invoiceLineTaxes entry with
//     TaxableAmount = totalExcludingTax; tourism tax has BaseUnitMeasure =
//     quantity and PerUnitAmount = rate instead of Percent), Item
//     (classifications, mapped, listID CLASS; Description), Price/PriceAmount
//     = unitPrice, ItemPriceExtension/Amount = subtotal.
//
// # Codes
//
// Our API speaks its own classification and payment-mode codes, and two
// units of its own; Mappings is the one table that turns them into the
// authority's (AuthorityClassification, AuthorityPaymentMode,
// AuthorityUnit): classifications to the authority's code of the same
// subject where there is one (Real Estate 007 -> Land and building 018,
// Education 009 -> Education fees 010) and to 022 Others otherwise; every
// line of a consolidated invoice is 004 Consolidated e-Invoice; payment
// mode 07 Other -> 08 Others; units BOX -> XBX and PCE -> H87.
//
// Marshal expects a validated document: it returns an error wrapping
// ErrMissing, naming the field, when a required value is absent, and never
// panics.
package ubl
