package receipts
