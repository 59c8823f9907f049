"""Payments: charging and refunding through the payment provider."""
