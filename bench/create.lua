-- bench/create.lua: wrk's requests for bench/writes.sh: POST /api/v1/invoices
-- of the same 10-line invoice with autoCalculate that bench's
-- invoices-create sends (bench/invoices.go), each with a serial number of
-- its own (the run, the wrk thread and a counter), so that no creation is
-- refused as a duplicate.
--   wrk -s bench/create.lua URL -- KEY BUYER_ID RUN
local threads, nthreads = {}, 0

function setup(thread)
  thread:set("tid", nthreads)
  nthreads = nthreads + 1
end

local body_head, body_tail, n = "", "", 0

function init(args)
  local key, buyer, run = args[1], args[2], args[3]
  wrk.method = "POST"
  wrk.headers["Authorization"] = "Bearer " .. key
  wrk.headers["Content-Type"] = "application/json"
  local lines = {}
  for i = 0, 9 do
    local rate = (i % 2 == 1) and "5" or "10"
    lines[#lines + 1] = string.format('{"classifications":["001"],"productDescription":"Item %d","quantity":%d,"unitCode":"H87",' ..
      '"unitPrice":%d.9,"discountRate":%d,"invoiceLineTaxes":[{"taxType":"01","taxRate":%s}]}',
      i + 1, 1 + i % 4, 19 + i * 3, 5 * (i % 3), rate)
  end
  body_head = '{"buyerId":"' .. buyer .. '","invoiceSerialNumber":"W' .. run .. "-" .. tid .. "-"
  body_tail = '","currencyCode":"MYR","autoCalculate":true,"invoiceLines":[' .. table.concat(lines, ",") ..
    '],"payment":{"paymentMode":"01"}}'
end

function request()
  n = n + 1
  return wrk.format(nil, nil, nil, body_head .. string.format("%09d", n) .. body_tail)
end
