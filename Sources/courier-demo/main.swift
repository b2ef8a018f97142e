print("courier-demo")
