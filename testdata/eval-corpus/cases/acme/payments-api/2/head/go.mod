module example.com/payments-api

go 1.22
