"""harvest"""
