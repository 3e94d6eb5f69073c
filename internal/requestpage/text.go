package requestpage

import (
	"strconv"
	"strings"
)

// pageText holds the request page's words per language.
var pageText = map[string]map[string]string{
	"en": {
		"title":           "Request an e-invoice",
		"notFound":        "Not found",
		"notFoundText":    "There is no page at this address. Check the link or QR code on your receipt.",
		"shop":            "Shop",
		"receipt":         "Receipt",
		"date":            "Date",
		"total":           "Total",
		"deleted":         "This receipt was withdrawn by the shop: it can no longer be turned into an e-invoice.",
		"consolidated":    "This sale is already in the shop's monthly consolidated e-invoice: it can no longer be turned into an e-invoice of its own.",
		"askShop":         "Please ask the shop.",
		"requested":       "Your e-invoice was requested.",
		"invoiceNumber":   "E-invoice number",
		"status":          "Status",
		"downloadPDF":     "Download the e-invoice (PDF)",
		"refreshing":      "This page refreshes itself until the tax authority has validated the e-invoice.",
		"intro":           "Fill in your details to receive an e-invoice of this purchase.",
		"name":            "Name (as registered with the tax authority)",
		"individual":      "I am an individual and do not know my TIN",
		"individualHint":  "Then give your NRIC or passport number: we find your TIN with the tax authority.",
		"tin":             "Tax identification number (TIN)",
		"idType":          "Identification type",
		"idValue":         "Identification number (NRIC, passport, business registration or army number)",
		"address":         "Address",
		"addressLine":     "Street address",
		"city":            "City",
		"postCode":        "Postcode",
		"state":           "State",
		"country":         "Country",
		"countryHint":     "Three-letter code: MYS for Malaysia.",
		"email":           "E-mail",
		"phone":           "Phone",
		"phoneHint":       "With the country code, e.g. +60123456789.",
		"submit":          "Request my e-invoice",
		"check":           "Please check the fields marked below.",
		"shopProblem":     "This receipt cannot be turned into an e-invoice just now: please ask the shop.",
		"badField":        "",
		"csrf":            "This form has expired or was sent from another site. Please send it again.",
		"unreadable":      "The form could not be read. Please send it again.",
		"tooMany":         "Too many requests",
		"tooManyText":     "Too many requests from your network. Please wait %s seconds and try again.",
		"unavailable":     "Temporarily unavailable",
		"unavailableText": "The service cannot complete your request just now. Please try again in a minute.",
		"st.draft":        "Being prepared",
		"st.ready":        "Being prepared",
		"st.submitting":   "Being sent to the tax authority",
		"st.Submitted":    "Awaiting the tax authority's validation",
		"st.Valid":        "Valid: validated by the tax authority",
		"st.Invalid":      "Refused by the tax authority: please ask the shop",
		"st.Cancelled":    "Cancelled by the shop",
	},
	"ms": {
		"title":           "Mohon e-invois",
		"notFound":        "Tidak dijumpai",
		"notFoundText":    "Tiada halaman di alamat ini. Semak pautan atau kod QR pada resit anda.",
		"shop":            "Kedai",
		"receipt":         "Resit",
		"date":            "Tarikh",
		"total":           "Jumlah",
		"deleted":         "Resit ini telah ditarik balik oleh kedai: ia tidak lagi boleh dijadikan e-invois.",
		"consolidated":    "Jualan ini sudah dimasukkan dalam e-invois disatukan bulanan kedai: ia tidak lagi boleh dijadikan e-invois tersendiri.",
		"askShop":         "Sila hubungi kedai.",
		"requested":       "E-invois anda telah dimohon.",
		"invoiceNumber":   "Nombor e-invois",
		"status":          "Status",
		"downloadPDF":     "Muat turun e-invois (PDF)",
		"refreshing":      "Halaman ini dikemas kini sendiri sehingga e-invois disahkan oleh pihak berkuasa cukai.",
		"intro":           "Isikan butiran anda untuk menerima e-invois bagi pembelian ini.",
		"name":            "Nama (seperti didaftarkan dengan pihak berkuasa cukai)",
		"individual":      "Saya individu dan tidak tahu TIN saya",
		"individualHint":  "Berikan nombor MyKad (NRIC) atau pasport anda: kami akan mencari TIN anda dengan pihak berkuasa cukai.",
		"tin":             "Nombor pengenalan cukai (TIN)",
		"idType":          "Jenis pengenalan",
		"idValue":         "Nombor pengenalan (MyKad, pasport, pendaftaran perniagaan atau nombor tentera)",
		"address":         "Alamat",
		"addressLine":     "Alamat jalan",
		"city":            "Bandar",
		"postCode":        "Poskod",
		"state":           "Negeri",
		"country":         "Negara",
		"countryHint":     "Kod tiga huruf: MYS untuk Malaysia.",
		"email":           "E-mel",
		"phone":           "Telefon",
		"phoneHint":       "Dengan kod negara, cth. +60123456789.",
		"submit":          "Mohon e-invois saya",
		"check":           "Sila semak medan yang ditandakan di bawah.",
		"shopProblem":     "Resit ini tidak dapat dijadikan e-invois buat masa ini: sila hubungi kedai.",
		"badField":        "Sila semak: ",
		"csrf":            "Borang ini telah tamat tempoh atau dihantar dari laman lain. Sila hantar semula.",
		"unreadable":      "Borang tidak dapat dibaca. Sila hantar semula.",
		"tooMany":         "Terlalu banyak permintaan",
		"tooManyText":     "Terlalu banyak permintaan dari rangkaian anda. Sila tunggu %s saat dan cuba lagi.",
		"unavailable":     "Tidak tersedia buat sementara",
		"unavailableText": "Perkhidmatan tidak dapat melengkapkan permintaan anda sekarang. Sila cuba lagi sebentar lagi.",
		"st.draft":        "Sedang disediakan",
		"st.ready":        "Sedang disediakan",
		"st.submitting":   "Sedang dihantar kepada pihak berkuasa cukai",
		"st.Submitted":    "Menunggu pengesahan pihak berkuasa cukai",
		"st.Valid":        "Sah: disahkan oleh pihak berkuasa cukai",
		"st.Invalid":      "Ditolak oleh pihak berkuasa cukai: sila hubungi kedai",
		"st.Cancelled":    "Dibatalkan oleh kedai",
	},
}

// pageLang picks the page's language: ?lang=en|ms, else the preferred of
// the two in Accept-Language (by q, then order), else English. explicit
// tells whether the query chose it (kept in the form's action).
func pageLang(query, acceptLanguage string) (lang string, explicit bool) {
	if query == "en" || query == "ms" {
		return query, true
	}
	best, bestQ := "en", 0.0
	if len(acceptLanguage) > 1024 {
		acceptLanguage = acceptLanguage[:1024]
	}
	for i, part := range strings.Split(acceptLanguage, ",") {
		if i >= 32 {
			break
		}
		tag, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		tag = strings.ToLower(strings.TrimSpace(tag))
		primary, _, _ := strings.Cut(tag, "-")
		if primary != "en" && primary != "ms" {
			continue
		}
		q := 1.0
		if v, ok := strings.CutPrefix(strings.TrimSpace(params), "q="); ok {
			f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
			if err != nil || f < 0 || f > 1 {
				continue
			}
			q = f
		}
		if q > bestQ {
			best, bestQ = primary, q
		}
	}
	return best, false
}
