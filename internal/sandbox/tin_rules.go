package sandbox

// The TIN rules of Step05-Taxpayer Validator (DECISIONS 14): every TIN of a
// document well formed and known, and the special TINs only where the
// authority allows them (reference myinvois.md 2.7). A function of the
// parsed document (docInfo), whatever its format.

// The codes of the taxpayer step's inner errors. ERR237 is the authority's
// (issue klsheng/myinvois-php-sdk#39); ERR405-ERR407 are the sandbox's own
// (the authority's codes for the other TIN failures are not published).
const (
	codeSupplierTIN  = "ERR405"
	codeBuyerTIN     = "ERR406"
	codeRecipientTIN = "ERR407"
	codeGeneralBuyer = "ERR237"
)

// The parties whose TINs are judged.
const (
	roleSupplier  = "supplier"
	roleBuyer     = "buyer"
	roleRecipient = "shipping recipient"
)

// specialAllowed is where each special TIN may stand: 010 the General
// Public (the buyer of a consolidated invoice and its notes, the supplier
// of a consolidated self-billed invoice); 020 a foreign buyer or shipping
// recipient; 030 a foreign supplier of a self-billed document; 040 a
// government buyer. The issuer (the supplier, or the buyer of a
// self-billed document) is never one of them.
func specialAllowed(tin, role string, selfBilled bool) bool {
	switch role {
	case roleSupplier:
		return selfBilled && (tin == "EI00000000010" || tin == "EI00000000030")
	case roleBuyer:
		return !selfBilled && tin != "EI00000000030"
	default:
		return tin != "EI00000000030"
	}
}

// checkTaxpayers fails a document with a TIN that is not well formed, not
// known (the reserved not-found set) or a special TIN where the authority
// does not allow it, and an invoice to the General Public that is not a
// consolidated one (ERR237).
func checkTaxpayers(d docInfo) *stepError {
	var inner []stepError
	judge := func(tin, role, code, property, path string) {
		switch {
		case specialTINs[tin]:
			if !specialAllowed(tin, role, d.selfBilled()) {
				inner = append(inner, innerError(code, property, path,
					"The "+role+"'s TIN cannot be the general TIN "+tin))
			}
		case !wellFormedTIN(tin):
			inner = append(inner, innerError(code, property, path,
				"The "+role+"'s TIN "+quoteTIN(tin)+" is not a valid TIN. Kindly use the Search TIN function to get the correct TIN"))
		case NotFoundTIN(tin):
			inner = append(inner, innerError(code, property, path,
				"No taxpayer found for the "+role+"'s TIN "+tin+". Kindly use the Search TIN function to get the correct TIN"))
		}
	}
	judge(d.SupplierTIN, roleSupplier, codeSupplierTIN, "SupplierTin", "Invoice.AccountingSupplierParty.Party.PartyIdentification.ID")
	judge(d.BuyerTIN, roleBuyer, codeBuyerTIN, "CustomerTin", "Invoice.AccountingCustomerParty.Party.PartyIdentification.ID")
	for _, tin := range d.RecipientTINs {
		judge(tin, roleRecipient, codeRecipientTIN, "DeliveryTin", "Invoice.Delivery.DeliveryParty.PartyIdentification.ID")
	}
	if d.BuyerTIN == "EI00000000010" && d.TypeCode == "01" && !d.Consolidated {
		inner = append(inner, innerError(codeGeneralBuyer, "CustomerTin", "Invoice.AccountingCustomerParty.Party.PartyIdentification.ID",
			"Buyer's details cannot be general TIN (010) for issuance of individual e-Invoice"))
	}
	if inner == nil {
		return nil
	}
	return stepFailure("Error05", stepTaxpayer, inner...)
}

// quoteTIN quotes a TIN for a message, cut to 40 characters.
func quoteTIN(tin string) string {
	r := []rune(tin)
	if len(r) > 40 {
		r = append(r[:40], '…')
	}
	return `"` + string(r) + `"`
}
