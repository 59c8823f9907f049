module example.com/webapp/service

go 1.22
