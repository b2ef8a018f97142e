enum CourierPlaceholder {}
